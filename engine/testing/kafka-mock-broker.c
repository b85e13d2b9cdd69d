/*
 * A Kafka-protocol broker in memory for tests: librdkafka's mock cluster
 * (rd_kafka_mock_cluster_new) wrapped in a process (DESIGN.md "Dependency facts":
 * no real Kafka can be installed on these machines).
 *
 * Usage: kafka-mock-broker [--brokers N] [--topic NAME:PARTITIONS]...
 *   --brokers N               brokers in the cluster (default 1, at most 16)
 *   --topic NAME:PARTITIONS   create NAME up front with PARTITIONS partitions
 *                             (others auto-create on first produce with the
 *                             mock's default partition count)
 *
 * Prints one line "BOOTSTRAP host:port[,host:port...]" on stdout once the
 * listeners are up (the mock binds 127.0.0.1 only), then runs until SIGTERM or
 * SIGINT, or until stdin closes (so a test runner that dies takes it along).
 * Everything else goes to stderr.
 *
 * A line "ERRORS API_KEY CODE COUNT" on stdin makes the next COUNT requests of
 * that API key (14: SyncGroup, ...) fail with the Kafka error CODE (for tests of
 * how a client lives through a broker's errors).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#define BROKERS_MAX 16
#define TOPICS_MAX 32
#define PARTITIONS_MAX 1024

static volatile sig_atomic_t stop_requested = 0;

static void on_signal(int signo) {
  (void)signo;
  stop_requested = 1;
}

/*
 * The leading fields of librdkafka's struct rd_kafka_mock_cluster_s (rdkafka_mock_int.h,
 * the same from 1.x through 2.x): cluster id, client handle, controller id.
 */
struct mock_cluster_head {
  char id[32];
  rd_kafka_t *rk;
  int32_t controller_id;
};

/*
 * The mock never sets its controller id, so Metadata advertises controller 0 while the
 * brokers are numbered from 1. kafkajs's idempotent producer asks the controller for its
 * producer id (InitProducerId) and fails with "Broker 0 not found". librdkafka 2.0.2 has
 * no setter, so point the field at broker 1, after checking the fields we can see
 * (id prefix, handle) match the expected layout. Returns 0 when set, -1 when not.
 */
static int set_controller_to_first_broker(rd_kafka_mock_cluster_t *mcluster, rd_kafka_t *rk) {
  struct mock_cluster_head *head = (struct mock_cluster_head *)mcluster;
  if (strncmp(head->id, "mockCluster", 11) != 0 || head->rk != rk ||
      rd_kafka_mock_cluster_handle(mcluster) != rk || head->controller_id > 0) {
    return -1;
  }
  head->controller_id = 1;
  return 0;
}

static void usage_exit(const char *why) {
  fprintf(stderr, "kafka-mock-broker: %s\n"
                  "usage: kafka-mock-broker [--brokers N] [--topic NAME:PARTITIONS]...\n",
          why);
  exit(2);
}

static long parse_count(const char *text, long max, const char *what) {
  char *end = NULL;
  errno = 0;
  long value = strtol(text, &end, 10);
  if (errno != 0 || end == text || *end != '\0' || value < 1 || value > max) {
    fprintf(stderr, "kafka-mock-broker: %s must be 1..%ld, got '%s'\n", what, max, text);
    exit(2);
  }
  return value;
}

static void install_signal_handlers(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  /* No SA_RESTART: poll() below returns EINTR so the loop sees the flag at once. */
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
}

#define ERRORS_MAX 64

/* Runs one stdin command line; unknown or malformed lines are reported and ignored. */
static void run_command(rd_kafka_mock_cluster_t *mcluster, const char *line) {
  int api_key = 0, code = 0, count = 0;
  if (sscanf(line, "ERRORS %d %d %d", &api_key, &code, &count) != 3 || count < 1 || count > ERRORS_MAX) {
    fprintf(stderr, "kafka-mock-broker: ignored stdin line: %s\n", line);
    return;
  }
  rd_kafka_resp_err_t errors[ERRORS_MAX];
  for (int i = 0; i < count; i++) errors[i] = (rd_kafka_resp_err_t)code;
  rd_kafka_mock_push_request_errors_array(mcluster, (int16_t)api_key, (size_t)count, errors);
  fprintf(stderr, "kafka-mock-broker: the next %d requests of API key %d fail with %d\n", count, api_key, code);
}

/* Blocks until a signal arrives or stdin reaches end of file (or errors); runs stdin's command lines. */
static void wait_for_stop(rd_kafka_mock_cluster_t *mcluster) {
  int watch_stdin = 1;
  char buf[256];
  char line[256];
  size_t line_len = 0;
  while (!stop_requested) {
    struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN, .revents = 0};
    int ready = poll(&pfd, watch_stdin ? 1 : 0, 1000);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (ready == 0) continue;
    if (pfd.revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL)) {
      ssize_t got = read(STDIN_FILENO, buf, sizeof buf);
      if (got == 0) return;           /* stdin closed: our parent is gone */
      if (got < 0 && errno != EINTR && errno != EAGAIN) return;
      for (ssize_t i = 0; i < got; i++) {
        if (buf[i] != '\n') {
          if (line_len < sizeof line - 1) line[line_len++] = buf[i];
          continue;
        }
        line[line_len] = '\0';
        run_command(mcluster, line);
        line_len = 0;
      }
    }
  }
}

int main(int argc, char **argv) {
  long broker_cnt = 1;
  const char *topic_names[TOPICS_MAX];
  long topic_partitions[TOPICS_MAX];
  int topic_cnt = 0;
  char errstr[512];

  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--brokers") == 0 && i + 1 < argc) {
      broker_cnt = parse_count(argv[++i], BROKERS_MAX, "--brokers");
    } else if (strcmp(argv[i], "--topic") == 0 && i + 1 < argc) {
      char *spec = argv[++i];
      char *colon = strrchr(spec, ':');
      if (colon == NULL || colon == spec) usage_exit("--topic takes NAME:PARTITIONS");
      if (topic_cnt == TOPICS_MAX) usage_exit("too many --topic options");
      *colon = '\0';
      topic_names[topic_cnt] = spec;
      topic_partitions[topic_cnt] = parse_count(colon + 1, PARTITIONS_MAX, "--topic partitions");
      topic_cnt++;
    } else {
      usage_exit("unknown or incomplete option");
    }
  }

  install_signal_handlers();

  /* The mock cluster needs a client handle for its bookkeeping; this one never connects. */
  rd_kafka_conf_t *conf = rd_kafka_conf_new();
  if (rd_kafka_conf_set(conf, "log_level", "3", errstr, sizeof errstr) != RD_KAFKA_CONF_OK) {
    fprintf(stderr, "kafka-mock-broker: conf: %s\n", errstr);
    return 1;
  }
  rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, errstr, sizeof errstr);
  if (rk == NULL) {
    fprintf(stderr, "kafka-mock-broker: rd_kafka_new failed: %s\n", errstr);
    return 1;
  }

  rd_kafka_mock_cluster_t *mcluster = rd_kafka_mock_cluster_new(rk, (int)broker_cnt);
  if (mcluster == NULL) {
    fprintf(stderr, "kafka-mock-broker: rd_kafka_mock_cluster_new failed\n");
    rd_kafka_destroy(rk);
    return 1;
  }

  if (set_controller_to_first_broker(mcluster, rk) != 0) {
    fprintf(stderr, "kafka-mock-broker: warning: unexpected mock cluster layout; "
                    "controller id left as is (idempotent producers will not initialise)\n");
  }

  int replication = broker_cnt < 3 ? (int)broker_cnt : 3;
  for (int t = 0; t < topic_cnt; t++) {
    rd_kafka_resp_err_t err = rd_kafka_mock_topic_create(
        mcluster, topic_names[t], (int)topic_partitions[t], replication);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
      fprintf(stderr, "kafka-mock-broker: creating topic %s: %s\n", topic_names[t],
              rd_kafka_err2str(err));
      rd_kafka_mock_cluster_destroy(mcluster);
      rd_kafka_destroy(rk);
      return 1;
    }
  }

  printf("BOOTSTRAP %s\n", rd_kafka_mock_cluster_bootstraps(mcluster));
  fflush(stdout);

  wait_for_stop(mcluster);

  rd_kafka_mock_cluster_destroy(mcluster);
  rd_kafka_destroy(rk);
  return 0;
}
