// Goal: the Accept header chooses the Arrow answer only when the client names the Arrow type
// (RFC 9110 §12.5.1 q-values), and every other header (absent, JSON, wildcards) keeps JSON.
// Method: one line per header, the answer it must get.
import t from 'tap';
import { prefersOverJson } from './accept.ts';

const ARROW = 'application/vnd.apache.arrow.stream';

const check = (accept: string | undefined, expected: boolean) => t.equal(prefersOverJson(accept, ARROW), expected, `Accept: ${accept ?? '(absent)'}`);

check(undefined, false);
check('', false);
check('application/json', false);
check('*/*', false);
check('application/*', false);
check('text/html, */*;q=0.8', false);
check(ARROW, true);
check(` ${ARROW.toUpperCase()} `, true);
check(`${ARROW};q=0.5`, true);
check(`${ARROW};q=0`, false);
check(`${ARROW};q=nonsense`, false);
check(`${ARROW}, application/json`, true);
check(`${ARROW};q=0.9, application/json`, false);
check(`application/json;q=0.5, ${ARROW}`, true);
check(`application/json;q=0.5, ${ARROW};q=0.5`, true);
check(`*/*;q=1, ${ARROW};q=0.1`, true);
check(`${ARROW}; charset=binary; q=1`, true);
check(`${ARROW};q=0, ${ARROW};q=0.3`, true);
