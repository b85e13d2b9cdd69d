// The decimal coding of FLOAT values (bytes per point), as SQL: the expressions that
// store a double as an integer and an exponent, and the alias that gives it back. families.ts
// uses it for FLOAT's raw and rollup columns; float-coding-migration.ts moves older tables to it.

/**
 * FLOAT values are stored decimally (bytes per point): a double that is m / 10^e for
 * an integer m below 2^53 and e one of DECIMAL_EXPONENTS (a sensor's "23.456" is 23456 and 3)
 * keeps m and e, any other double (thirds, NaN, infinities, -0) its IEEE bits with e = RAW_BITS.
 * Decoding divides m by 10^e in doubles, which IEEE rounds correctly, so it gives back the very
 * double the check m / 10^e = v accepted: lossless for every value. Small integers that step
 * slowly take T64 + ZSTD at ~1.3 bytes per point against 2.2 for the doubles' bytes under ZSTD
 * (bench values at three decimals, measured 2026-11-25).
 *
 * The exponent is the first of DECIMAL_EXPONENTS that fits, not the smallest: values printed
 * at three decimals ("23.450", "23.400") would otherwise mix exponents 1, 2 and 3 and their
 * integers three scales, which took 1.6 bytes per point instead of 1.3. Three decimals cover
 * most sensors and every integer below 9e12; six the finer ones; 0 the integers up to 2^53.
 */
export const DECIMAL_EXPONENTS = [3, 6, 0] as const;
export const RAW_BITS = 255;

/** The exponent a double is stored with (RAW_BITS: its bits), as SQL over the double `v`. */
export function decimalExponentSql(v: string): string {
  const decimal = DECIMAL_EXPONENTS.map((e) => {
    const scale = 10 ** e;
    return `abs(${v}) < ${2 ** 53 / scale} AND round(${v} * ${scale}) / ${scale} = ${v}, ${e}`;
  });
  // -0 = 0 in SQL: its sign bit would be lost as the integer 0. NaN and infinities fail every test.
  return `multiIf(${v} = 0 AND reinterpret(${v}, 'Int64') != 0, ${RAW_BITS}, ${decimal.join(', ')}, ${RAW_BITS})`;
}

/** The stored integer of a double, given its exponent's SQL. */
export function decimalMantissaSql(v: string, exponent: string): string {
  return `if(${exponent} = ${RAW_BITS}, reinterpret(${v}, 'Int64'), toInt64(round(${v} * intExp10(${exponent}))))`;
}

/** The double back from its stored integer and exponent. */
export function decimalValueSql(mantissa: string, exponent: string): string {
  return `if(${exponent} = ${RAW_BITS}, reinterpret(${mantissa}, 'Float64'), ${mantissa} / intExp10(${exponent}))`;
}

/**
 * The integers' codec. A sensor's integers wander slowly under their noise: their differences
 * (Delta), the bits transposed across 64 of them (T64 'bit'), then ZSTD. On the bench's values
 * (three decimals, a daily cycle and noise; 10M points after OPTIMIZE FINAL) against T64 +
 * ZSTD(3): raw 1.295 -> 1.265 bytes per point, the minute rows' sum, extremes and last value
 * 0.104 -> 0.083. Delta + T64 in its byte form was worse than either (1.716), as were
 * Delta + ZSTD (1.877) and ZSTD alone (1.770); ZSTD(9) or (19) after the transposition gained
 * under 0.01 for 1.2-2.7x the merge time. Inserting 4M rows cost the same with either codec
 * (845 against 837 ms); a full scan of the column ~2 ns more a point.
 */
export const DECIMAL_MANTISSA_CODEC = "CODEC(Delta, T64('bit'), ZSTD(3))";

/** A Float64 column stored decimally: its integer, its exponent, and itself as the alias decoding them. */
export function decimalColumnDdl(name: string): [name: string, typeAndCodec: string][] {
  return [
    [`${name}_m`, `Int64 ${DECIMAL_MANTISSA_CODEC}`],
    [`${name}_e`, 'UInt8 CODEC(ZSTD(1))'],
    [name, `Float64 ALIAS ${decimalValueSql(`${name}_m`, `${name}_e`)}`],
  ];
}

/** A double expression written to a decimally stored column: its target columns and their expressions. */
export function decimalTargets(name: string, expr: string): { targets: string[]; exprs: string[] } {
  const exponent = decimalExponentSql(expr);
  return { targets: [`${name}_m`, `${name}_e`], exprs: [decimalMantissaSql(expr, exponent), exponent] };
}

/**
 * The sum of a decimally stored column over a group: exact when every value shares a decimal
 * exponent (their integers added, then one division: the double nearest the true sum, itself
 * decimal, so it stores at the same exponent), else the doubles' sum. Summing the doubles of
 * 60 three-decimal values lands off the decimal grid about every other minute and then stored
 * at six decimals or as bits, which took minute sums from ~0.04 to 0.10 bytes per point.
 */
export function decimalSumSql(column: string): string {
  return `if(min(${column}_e) = max(${column}_e) AND max(${column}_e) != ${RAW_BITS}, sum(toInt128(${column}_m)) / intExp10(max(${column}_e)), sum(${column}))`;
}

/** 10^e for the decimal exponents, as the engine's intExp10 gives them (exact doubles). */
const POWERS_OF_TEN: Readonly<Record<number, number>> = Object.fromEntries(DECIMAL_EXPONENTS.map((e) => [e, 10 ** e]));

/**
 * The doubles of a decimally stored column read as its parts (`<name>_m` Int64, `<name>_e`
 * UInt8), decoded as decimalValueSql does in the engine: the integer as a double (exact below
 * 2^53) divided by 10^e, or the integer's bits as they are. Reading the parts and decoding
 * here costs the engine's statement less than its alias does.
 */
export function decodeDecimalColumn(mantissas: BigInt64Array, exponents: Uint8Array): Float64Array {
  const out = new Float64Array(mantissas.length);
  const bits = new Float64Array(mantissas.buffer, mantissas.byteOffset, mantissas.length);
  for (let i = 0; i < out.length; i++) {
    const e = exponents[i] as number;
    if (e === RAW_BITS) out[i] = bits[i] as number;
    else {
      const scale = POWERS_OF_TEN[e];
      if (scale === undefined) throw new Error(`a decimally stored value with exponent ${e}, not one of ${DECIMAL_EXPONENTS.join(', ')} or ${RAW_BITS}`);
      out[i] = Number(mantissas[i] as bigint) / scale;
    }
  }
  return out;
}
