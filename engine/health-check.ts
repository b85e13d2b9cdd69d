// A store's liveness probe, as GET /health runs them (CONTRACT "Operational endpoints").

export interface HealthCheck {
  /** The store's name as /health reports it when failing: postgres, clickhouse. */
  name: string;
  /** Resolves when the store answers; rejects otherwise. */
  ping(): Promise<void>;
}
