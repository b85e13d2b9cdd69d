// The expression language of functions and of POST /timeseries/synthetic/query: CDF's
// synthetic time series language, so the same text works in both places. It is parsed by
// chevrotain (a grammar, never eval) into a small tree whose every node keeps the character
// offset it starts at, and checked (function names, argument counts, input keys) before it is
// accepted: a bad expression is refused with the offset and what was expected there.
//
//   expression := sum
//   sum        := product (("+" | "-") product)*
//   product    := unary (("*" | "/") unary)*
//   unary      := ("-" | "+") unary | power
//   power      := primary ("^" unary)?                   right-associative; -2^2 is -(2^2)
//   primary    := number | input | call | "(" sum ")"
//   input      := ts "{" key "=" (string | number) ("," key "=" (string | number))* "}"
//   call       := name "(" (argument ("," argument)*)? ")"
//   argument   := sum | "[" ((string | number) ("," (string | number))*)? "]"
import { EmbeddedActionsParser, Lexer, createToken, type IParserErrorMessageProvider, type IToken, type TokenType } from 'chevrotain';
import { FUNCTION_EXPRESSION_CHARS_MAX } from '../limits.ts';
import { ExpressionError, checkTree } from './expression-checks.ts';
import type { BinaryOp, Expr, InputRef, Raw } from './expression-tree.ts';

export { CALLS, type BinaryOp, type CallName, type Expr, type InputRef } from './expression-tree.ts';

export type ParsedExpression =
  | { ok: true; expression: Expr; inputs: InputRef[] }
  | { ok: false; position: number; message: string };

// ---- tokens ----

const Identifier = createToken({ name: 'Identifier', pattern: /[A-Za-z_][A-Za-z0-9_]*/, label: 'a name' });
const Ts = createToken({ name: 'Ts', pattern: /ts(?![A-Za-z0-9_])/i, longer_alt: Identifier, label: 'ts' });
const NumberLiteral = createToken({ name: 'NumberLiteral', pattern: /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/, label: 'a number' });
const StringLiteral = createToken({ name: 'StringLiteral', pattern: /'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"/, label: 'a quoted string' });
const Plus = createToken({ name: 'Plus', pattern: '+', label: "'+'" });
const Minus = createToken({ name: 'Minus', pattern: '-', label: "'-'" });
const Star = createToken({ name: 'Star', pattern: '*', label: "'*'" });
const Slash = createToken({ name: 'Slash', pattern: '/', label: "'/'" });
const Caret = createToken({ name: 'Caret', pattern: '^', label: "'^'" });
const LParen = createToken({ name: 'LParen', pattern: '(', label: "'('" });
const RParen = createToken({ name: 'RParen', pattern: ')', label: "')'" });
const LCurly = createToken({ name: 'LCurly', pattern: '{', label: "'{'" });
const RCurly = createToken({ name: 'RCurly', pattern: '}', label: "'}'" });
const LBracket = createToken({ name: 'LBracket', pattern: '[', label: "'['" });
const RBracket = createToken({ name: 'RBracket', pattern: ']', label: "']'" });
const Comma = createToken({ name: 'Comma', pattern: ',', label: "','" });
const Equals = createToken({ name: 'Equals', pattern: '=', label: "'='" });
const WhiteSpace = createToken({ name: 'WhiteSpace', pattern: /\s+/, group: Lexer.SKIPPED });

const TOKENS: TokenType[] = [
  WhiteSpace, NumberLiteral, StringLiteral, Ts, Identifier,
  Plus, Minus, Star, Slash, Caret, LParen, RParen, LCurly, RCurly, LBracket, RBracket, Comma, Equals,
];

const LEXER = new Lexer(TOKENS, { positionTracking: 'onlyOffset', ensureOptimizations: false });

// ---- the parser: builds a raw tree; names and keys are checked after ----

const found = (token: IToken): string => (token.tokenType.name === 'EOF' ? 'the end of the expression' : `'${token.image}'`);

const MESSAGES: IParserErrorMessageProvider = {
  buildMismatchTokenMessage: ({ expected, actual }) => `expected ${expected.LABEL ?? expected.name}, found ${found(actual)}`,
  buildNotAllInputParsedMessage: ({ firstRedundant }) => `expected an operator or the end of the expression, found ${found(firstRedundant)}`,
  buildNoViableAltMessage: ({ actual, ruleName }) => `expected ${RULE_WORDS[ruleName] ?? 'a value'}, found ${found(actual[0]!)}`,
  buildEarlyExitMessage: ({ actual, ruleName }) => `expected ${RULE_WORDS[ruleName] ?? 'a value'}, found ${found(actual[0]!)}`,
};

const RULE_WORDS: Record<string, string> = {
  primary: 'a number, ts{...}, a function call or \'(\'',
  unary: 'a number, ts{...}, a function call or \'(\'',
  literal: 'a quoted string or a number',
  argument: 'an expression or a [list]',
};

const unquote = (image: string): string => image.slice(1, -1).replace(/\\(.)/g, '$1');

class ExpressionParser extends EmbeddedActionsParser {
  constructor() {
    super(TOKENS, { errorMessageProvider: MESSAGES, maxLookahead: 2 });
    this.performSelfAnalysis();
  }

  readonly sum = this.RULE('sum', (): Raw => {
    let left = this.SUBRULE(this.product);
    this.MANY(() => {
      const op = this.OR([{ ALT: () => this.CONSUME(Plus) }, { ALT: () => this.CONSUME(Minus) }]);
      const right = this.SUBRULE2(this.product);
      left = this.ACTION(() => ({ kind: 'binary', at: left.at, op: op.image as BinaryOp, left, right }));
    });
    return left;
  });

  private readonly product = this.RULE('product', (): Raw => {
    let left = this.SUBRULE(this.unary);
    this.MANY(() => {
      const op = this.OR([{ ALT: () => this.CONSUME(Star) }, { ALT: () => this.CONSUME(Slash) }]);
      const right = this.SUBRULE2(this.unary);
      left = this.ACTION(() => ({ kind: 'binary', at: left.at, op: op.image as BinaryOp, left, right }));
    });
    return left;
  });

  private readonly unary = this.RULE('unary', (): Raw => this.OR([
    {
      ALT: () => {
        const sign = this.CONSUME(Minus);
        const arg = this.SUBRULE(this.unary);
        return this.ACTION(() => ({ kind: 'negate', at: sign.startOffset, arg }) as Raw);
      },
    },
    { ALT: () => { this.CONSUME(Plus); return this.SUBRULE2(this.unary); } },
    { ALT: () => this.SUBRULE(this.power) },
  ]));

  private readonly power = this.RULE('power', (): Raw => {
    const base = this.SUBRULE(this.primary);
    let result = base;
    this.OPTION(() => {
      this.CONSUME(Caret);
      const exponent = this.SUBRULE(this.unary);
      result = this.ACTION(() => ({ kind: 'binary', at: base.at, op: '^', left: base, right: exponent }));
    });
    return result;
  });

  private readonly primary = this.RULE('primary', (): Raw => this.OR([
    {
      ALT: () => {
        const token = this.CONSUME(NumberLiteral);
        return this.ACTION(() => ({ kind: 'number', at: token.startOffset, value: Number(token.image) }) as Raw);
      },
    },
    { ALT: () => this.SUBRULE(this.reference) },
    { ALT: () => this.SUBRULE(this.call) },
    {
      ALT: () => {
        this.CONSUME(LParen);
        const inner = this.SUBRULE(this.sum);
        this.CONSUME(RParen);
        return inner;
      },
    },
  ]));

  private readonly reference = this.RULE('reference', (): Raw => {
    const ts = this.CONSUME(Ts);
    this.CONSUME(LCurly);
    const pairs: Extract<Raw, { kind: 'input' }>['pairs'] = [];
    this.MANY_SEP({
      SEP: Comma,
      DEF: () => {
        const key = this.CONSUME(Identifier);
        this.CONSUME(Equals);
        const value = this.SUBRULE(this.literal);
        this.ACTION(() => pairs.push({ key: key.image, keyAt: key.startOffset, value: value.value, valueAt: value.at }));
      },
    });
    this.CONSUME(RCurly);
    return { kind: 'input', at: ts.startOffset, pairs };
  });

  private readonly literal = this.RULE('literal', (): { value: string | number; at: number } => this.OR([
    { ALT: () => { const t = this.CONSUME(StringLiteral); return { value: this.ACTION(() => unquote(t.image)), at: t.startOffset }; } },
    { ALT: () => { const t = this.CONSUME(NumberLiteral); return { value: this.ACTION(() => Number(t.image)), at: t.startOffset }; } },
    {
      ALT: () => {
        const sign = this.CONSUME(Minus);
        const t = this.CONSUME2(NumberLiteral);
        return { value: this.ACTION(() => -Number(t.image)), at: sign.startOffset };
      },
    },
  ]));

  private readonly call = this.RULE('call', (): Raw => {
    const name = this.CONSUME(Identifier);
    this.CONSUME(LParen);
    const args: Raw[] = [];
    this.MANY_SEP({ SEP: Comma, DEF: () => { const a = this.SUBRULE(this.argument); this.ACTION(() => args.push(a)); } });
    this.CONSUME(RParen);
    return { kind: 'call', at: name.startOffset, name: name.image, args };
  });

  private readonly argument = this.RULE('argument', (): Raw => this.OR([
    {
      ALT: () => {
        const open = this.CONSUME(LBracket);
        const items: { value: string | number; at: number }[] = [];
        this.MANY_SEP({ SEP: Comma, DEF: () => { const item = this.SUBRULE(this.literal); this.ACTION(() => items.push(item)); } });
        this.CONSUME(RBracket);
        return { kind: 'list', at: open.startOffset, items } as Raw;
      },
    },
    { ALT: () => this.SUBRULE(this.sum) },
  ]));
}

/** One parser for the process: chevrotain parsers are reusable, and building one analyses the grammar. */
let parser: ExpressionParser | undefined;

/**
 * Parses and checks `text`. Never throws on bad input: a refusal comes back with the
 * 0-based character offset it concerns and a message naming what was expected there.
 */
export function parseExpression(text: string): ParsedExpression {
  if (text.length > FUNCTION_EXPRESSION_CHARS_MAX) {
    return { ok: false, position: FUNCTION_EXPRESSION_CHARS_MAX, message: `the expression has ${text.length} characters; at most ${FUNCTION_EXPRESSION_CHARS_MAX}` };
  }
  const lexed = LEXER.tokenize(text);
  const lexError = lexed.errors[0];
  if (lexError) return { ok: false, position: lexError.offset, message: `unexpected character ${JSON.stringify(text[lexError.offset])}` };
  const tooDeep = nestingBeyond(lexed.tokens);
  if (tooDeep !== undefined) return { ok: false, position: tooDeep, message: `the expression nests more than ${NESTING_MAX} deep (parentheses, signs and powers); write long chains with sum(...), max(...) and the like` };
  parser ??= new ExpressionParser();
  parser.input = lexed.tokens;
  const raw = parser.sum();
  const parseError = parser.errors[0];
  if (parseError) {
    const token = parseError.token;
    const position = token.tokenType.name === 'EOF' || Number.isNaN(token.startOffset) ? text.length : token.startOffset;
    return { ok: false, position, message: parseError.message };
  }
  const deep = depthBeyond(raw);
  if (deep !== undefined) return { ok: false, position: deep, message: `the expression nests more than ${DEPTH_MAX} operations deep; write long chains with sum(...), max(...) and the like` };
  try {
    return { ok: true, ...checkTree(raw) };
  } catch (error) {
    if (error instanceof ExpressionError) return { ok: false, position: error.position, message: error.message };
    throw error;
  }
}

/**
 * The deepest the parser recurses: each open bracket, sign and power is a level. 100 levels is
 * far past a readable expression and far inside the stack.
 */
const NESTING_MAX = 100;
/** The deepest tree accepted: what checks, evaluation and the compiled statement recurse over. */
const DEPTH_MAX = 256;

/** Offset of the first token past NESTING_MAX levels, if any. */
function nestingBeyond(tokens: IToken[]): number | undefined {
  let open = 0;
  let chained = 0;
  for (let i = 0; i < tokens.length; i++) {
    const type = tokens[i]!.tokenType;
    if (type === LParen || type === LBracket || type === LCurly) open++;
    else if (type === RParen || type === RBracket || type === RCurly) open--;
    // A sign after an operator or at the start, and every power, recurse once more until the
    // chain ends; a run of them is what costs the stack.
    const previous = tokens[i - 1]?.tokenType;
    const sign = (type === Minus || type === Plus) && (previous === undefined || OPERATOR_BEFORE_SIGN.has(previous));
    if (sign || type === Caret) chained++;
    else if (type === RParen || type === Comma) chained = 0;
    if (open + chained > NESTING_MAX) return tokens[i]!.startOffset;
  }
  return undefined;
}

const OPERATOR_BEFORE_SIGN = new Set<TokenType>([Plus, Minus, Star, Slash, Caret, LParen, LBracket, Comma, Equals]);

/** Offset of a node deeper than DEPTH_MAX, if any; iterative, so a deep tree cannot overflow it. */
function depthBeyond(root: Raw): number | undefined {
  const stack: [Raw, number][] = [[root, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [node, depth] = top;
    if (depth > DEPTH_MAX) return node.at;
    switch (node.kind) {
      case 'negate': stack.push([node.arg, depth + 1]); break;
      case 'binary': stack.push([node.left, depth + 1], [node.right, depth + 1]); break;
      case 'call': for (const arg of node.args) stack.push([arg, depth + 1]); break;
    }
  }
  return undefined;
}
