// Goal: parseExpression accepts CDF's synthetic time series language as CDF's documentation
// writes it (precedence, associativity, inputs by id and externalId with their aggregate keys,
// every function and its argument count), and refuses anything else with the character offset
// and what was expected there, never by throwing and never past the stack, however long,
// deep or garbled the text.
// Method: a table of texts with the tree or the refusal each must give; fast-check draws
// arbitrary strings, strings over the language's own characters and deep nests.
import t from 'tap';
import fc from 'fast-check';
import { FUNCTION_EXPRESSION_CHARS_MAX, FUNCTION_INPUTS_MAX } from '../limits.ts';
import { parseExpression, type Expr } from './expression.ts';

/** A tree as compact text: numbers, i<k> for inputs, (op a b), name(args...). */
function shape(e: Expr): string {
  switch (e.kind) {
    case 'number': return String(e.value);
    case 'input': return `i${e.input}`;
    case 'negate': return `(neg ${shape(e.arg)})`;
    case 'binary': return `(${e.op} ${shape(e.left)} ${shape(e.right)})`;
    case 'call': return `${e.name}(${e.args.map(shape).join(' ')})`;
    case 'on_error': return `on_error(${shape(e.expr)} ${shape(e.fallback)})`;
    case 'map': return `map(${shape(e.expr)} [${e.from.join(' ')}] [${e.to.join(' ')}] ${shape(e.fallback)})`;
  }
}

t.test('CDF\'s texts parse to the trees their precedence gives', async (t) => {
  const cases: [string, string][] = [
    ["3.6 * TS{externalId='wind-speed'}", '(* 3.6 i0)'],
    ['TS{id=123} + TS{externalId="my_external_id"}', '(+ i0 i1)'],
    ['sin(pow(TS{id=123}, 2))', 'sin(pow(i0 2))'],
    ["TS{id=123, aggregate='average', granularity='1h'}+TS{id=456}", '(+ i0 i1)'],
    ['1 + 2 * 3 - 4 / 5', '(- (+ 1 (* 2 3)) (/ 4 5))'],
    ['2^3^2', '(^ 2 (^ 3 2))'],
    ['-2^2', '(neg (^ 2 2))'],
    ['2^-1', '(^ 2 (neg 1))'],
    ['(1 + 2) * 3', '(* (+ 1 2) 3)'],
    ['ts{id=1} - ts{id=1} + ts{ID=1}', '(+ (- i0 i0) i0)'],
    ['max(ts{id=1}, ts{id=2}, 3) + AVG(1, 2)', '(+ max(i0 i1 3) avg(1 2))'],
    ['round(ts{id=1}, -2) + round(1.5)', '(+ round(i0 (neg 2)) round(1.5))'],
    ['on_error(1 / ts{id=1}, 0)', 'on_error((/ 1 i0) 0)'],
    ["map(ts{externalId='valve'}, ['OPEN', \"CLOSED\"], [1, 0], -1)", 'map(i0 [OPEN CLOSED] [1 0] (neg 1))'],
    ['pi() * 1e3 + .5', '(+ (* pi() 1000) 0.5)'],
    ["ts{externalId='it\\'s'}", 'i0'],
  ];
  for (const [text, tree] of cases) {
    const parsed = parseExpression(text);
    t.ok(parsed.ok, `${text}: parses`);
    if (parsed.ok) t.equal(shape(parsed.expression), tree, text);
  }
  const inputs = parseExpression("ts{id=1} + ts{externalId='a', aggregate='interpolation', granularity='10m', alignment=60000} + ts{externalId='it\\'s'}");
  t.ok(inputs.ok && inputs.inputs.length === 3);
  if (inputs.ok) {
    t.strictSame(inputs.inputs, [{ id: 1 }, { externalId: 'a', aggregate: 'interpolation', granularity: '10m', alignment: 60000 }, { externalId: "it's" }], 'inputs once each, keys as written');
  }
});

t.test('a refusal names the character offset and what was expected', async (t) => {
  const cases: [string, number, RegExp][] = [
    ['1 +', 3, /expected a number, ts\{\.\.\.\}, a function call or '\(', found the end of the expression/],
    ['(1', 2, /expected '\)', found the end/],
    ['1 2', 2, /expected an operator or the end of the expression, found '2'/],
    ["ts{externalId='a'", 17, /expected '\}'/],
    ['ts{id=1,}', 8, /expected a name, found '\}'/],
    ['1 $ 2', 2, /unexpected character "\$"/],
    ['foo(1)', 0, /unknown function foo; the functions are sin, /],
    ['sin(1, 2)', 0, /sin takes 1 argument, got 2/],
    ['pow(1)', 0, /pow takes 2 arguments, got 1/],
    ['max()', 0, /max takes at least 1 argument, got 0/],
    ['round(1, 10)', 9, /whole number from -9 to 9/],
    ['round(1, ts{id=1})', 9, /decimals are a number/],
    ['on_error(1)', 0, /on_error takes 2 arguments/],
    ['map(1, [1], [1, 2], 0)', 12, /differ in length \(1 and 2\)/],
    ["map(1, [1], ['a'], 0)", 13, /a number to map to/],
    ['map(1, 1, [1], 0)', 7, /the \[list\] of values to map from/],
    ['[1, 2]', 0, /found '\['/],
    ['sin([1])', 4, /only an argument of map/],
    ['ts{}', 0, /one of id or externalId/],
    ["ts{id=1, externalId='a'}", 0, /one of id or externalId/],
    ["ts{name='a'}", 3, /unknown key name in ts\{\.\.\.\}/],
    ['ts{id=1, id=2}', 9, /id is given twice/],
    ['ts{id=0}', 6, /id is a whole number from 1/],
    ["ts{externalId=''}", 14, /non-empty quoted string/],
    ["ts{id=1, aggregate='average'}", 0, /aggregate and granularity together/],
    ["ts{id=1, aggregate='median', granularity='1h'}", 0, /unknown aggregate median/],
    ["ts{id=1, aggregate='average', granularity='1 fortnight'}", 0, /granularity/],
    ['ts{id=1, alignment=5}', 0, /alignment applies to an aggregate/],
    ['1e999', 0, /beyond the range of a double/],
  ];
  for (const [text, position, message] of cases) {
    const parsed = parseExpression(text);
    t.notOk(parsed.ok, `${text}: refused`);
    if (!parsed.ok) {
      t.equal(parsed.position, position, `${text}: at ${position}`);
      t.match(parsed.message, message, `${text}: says what`);
    }
  }
});

t.test('limits: length, distinct inputs, nesting and depth are refusals, never a thrown stack overflow', async (t) => {
  const long = parseExpression(`1${'+1'.repeat(FUNCTION_EXPRESSION_CHARS_MAX)}`);
  t.match(long, { ok: false, position: FUNCTION_EXPRESSION_CHARS_MAX, message: /at most 10000/ });
  const inputs = (n: number) => Array.from({ length: n }, (_, i) => `ts{id=${i + 1}}`).join(' + ');
  t.ok(parseExpression(inputs(FUNCTION_INPUTS_MAX)).ok, `${FUNCTION_INPUTS_MAX} inputs`);
  t.match(parseExpression(inputs(FUNCTION_INPUTS_MAX + 1)), { ok: false, message: /more than 100 time series/ });
  t.ok(parseExpression(`${'('.repeat(100)}1${')'.repeat(100)}`).ok, '100 parentheses deep');
  t.match(parseExpression(`${'('.repeat(101)}1${')'.repeat(101)}`), { ok: false, position: 100, message: /nests more than 100 deep/ });
  t.match(parseExpression(`${'-'.repeat(4000)}1`), { ok: false, message: /nests more than 100 deep/ });
  t.match(parseExpression(`2${'^2'.repeat(3000)}`), { ok: false, message: /nests more than 100 deep/ });
  t.ok(parseExpression(`1${'+1'.repeat(255)}`).ok, 'a chain of 256 terms');
  t.match(parseExpression(`1${'+1'.repeat(3000)}`), { ok: false, message: /nests more than 256 operations deep/ });
  t.match(parseExpression(`${'sin('.repeat(2000)}1${')'.repeat(2000)}`), { ok: false });
});

t.test('any text is parsed or refused with an offset inside it, never thrown', async (t) => {
  const alphabet = fc.constantFrom(...'ts{}()[],=+-*/^ 0123456789.eE\'"abcdxyz_'.split(''), 'ts{id=1}', "ts{externalId='a'}", 'sin(', 'max(', 'map(', 'on_error(', 'round(');
  const texts = fc.oneof(fc.string({ maxLength: 200 }), fc.array(alphabet, { maxLength: 60 }).map((parts) => parts.join('')));
  fc.assert(fc.property(texts, (text) => {
    const parsed = parseExpression(text);
    return parsed.ok || (Number.isInteger(parsed.position) && parsed.position >= 0 && parsed.position <= text.length && parsed.message.length > 0);
  }), { numRuns: 3000 });
  t.pass('3,000 texts parsed or refused');
});
