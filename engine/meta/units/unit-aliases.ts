// Alias names of a catalogue unit: the spellings a client may write as a time series `unit`
// (SPEC "Time series": `unit` must name a known unit). Used by build-catalogue.ts only; the
// result is stored in the JSON, so matching at runtime is a plain lookup.

/**
 * Spellings seen in plant historians and instrument tags that QUDT's symbols and labels do
 * not give, by QUDT local name. Gauge pressures (barg, psig) are deliberately absent: they are
 * offset by the ambient pressure, which no fixed conversion can express.
 */
export const CURATED_ALIASES: Readonly<Record<string, readonly string[]>> = {
  'DEG_C': ['degC', 'deg C', 'C', 'oC', 'Cel', 'Celsius', 'centigrade'],
  'DEG_F': ['degF', 'deg F', 'F', 'oF', 'Fahrenheit'],
  'K': ['kelvin', 'degK'],
  'DEG_R': ['degR', 'Rankine'],
  'BAR_A': ['bara', 'bar(a)', 'bar a'],
  'KiloPA_A': ['kPaA', 'kPa(a)', 'kPa abs'],
  'MilliM_HG': ['mmHg', 'torr (mmHg)'],
  'IN_HG': ['inHg'],
  'IN_H2O': ['inH2O', 'inWC', 'in WC'],
  'MilliM_H2O': ['mmH2O', 'mmWC', 'mm WC'],
  'CentiM_H2O': ['cmH2O'],
  'M_H2O': ['mH2O', 'mWC'],
  'FT_H2O': ['ftH2O'],
  'ATM': ['atm'],
  'REV-PER-MIN': ['rpm', 'r/min', 'RPM'],
  'REV-PER-SEC': ['rps', 'r/s'],
  'SEC': ['sec', 'second', 'seconds'],
  'MilliSEC': ['msec', 'millisecond', 'milliseconds'],
  'MicroSEC': ['usec', 'microsecond', 'microseconds'],
  'MIN': ['minute', 'minutes', 'mins'],
  'HR': ['hr', 'hrs', 'hour', 'hours'],
  'DAY': ['day', 'days'],
  'WK': ['week', 'weeks', 'wk'],
  'YR': ['year', 'years', 'yr', 'a'],
  'PERCENT': ['pct', 'percent', '%'],
  'PERCENT_RH': ['RH%', '% RH', '%rh', 'RH'],
  'PPM': ['ppm'],
  'PPB': ['ppb'],
  'PPTH': ['permille', 'per mille', 'ppt (thousand)'],
  'W-HR': ['Wh'],
  'KiloW-HR': ['kWh', 'kW h', 'kW.h', 'kilowatt hour', 'kilowatt-hour'],
  'MegaW-HR': ['MWh', 'megawatt hour'],
  'GigaW-HR': ['GWh'],
  'TeraW-HR': ['TWh'],
  'KiloVAR-HR': ['kvarh', 'kVArh'],
  'MegaVAR-HR': ['Mvarh'],
  'VAR-HR': ['varh'],
  'KiloVA-HR': ['kVAh'],
  'MegaVA-HR': ['MVAh'],
  'M3-PER-HR': ['m3/hr', 'm^3/h', 'cmh'],
  'M3-PER-DAY': ['m3/day', 'm3/d'],
  'M3-PER-MIN': ['m3/min'],
  'M3-PER-SEC': ['m3/s', 'cumecs'],
  'L-PER-MIN': ['lpm', 'l/min', 'LPM'],
  'L-PER-SEC': ['lps', 'l/s'],
  'L-PER-HR': ['l/h', 'lph'],
  'GAL_US-PER-MIN': ['gpm', 'GPM', 'USgpm'],
  'GAL_UK-PER-MIN': ['igpm', 'IGPM'],
  'GAL_US-PER-DAY': ['gpd', 'GPD'],
  'FT3-PER-MIN': ['cfm', 'CFM'],
  'FT3-PER-HR': ['cfh', 'CFH'],
  'FT3-PER-SEC': ['cfs', 'CFS'],
  'BBL_US-PER-DAY': ['bbl/d', 'bbl/day', 'bpd', 'BPD'],
  'KiloGM-PER-HR': ['kg/hr'],
  'KiloGM-PER-SEC': ['kg/sec'],
  'TONNE-PER-HR': ['t/hr', 'tph', 'TPH'],
  'TONNE-PER-DAY': ['t/d', 't/day', 'tpd', 'TPD'],
  'LB-PER-HR': ['lb/hr', 'lbs/hr', 'pph'],
  'KiloM-PER-HR': ['kph', 'kmh', 'km/hr', 'kmph'],
  'MI-PER-HR': ['mph', 'MPH'],
  'KN': ['knot', 'knots'],
  'HZ': ['hertz', 'cps'],
  'A': ['amp', 'amps', 'ampere', 'amperes'],
  'V': ['volt', 'volts', 'VAC', 'VDC'],
  'W': ['watt', 'watts'],
  'KiloW': ['kilowatt', 'kilowatts'],
  'MegaW': ['megawatt', 'megawatts'],
  'VAR': ['var', 'VAr'],
  'KiloVAR': ['kvar', 'kVAr', 'kVAR'],
  'MegaVAR': ['Mvar', 'MVAr', 'MVAR'],
  'N-M': ['Nm', 'N m', 'N-m'],
  'KiloN-M': ['kNm', 'kN-m'],
  'LB_F-FT': ['lbf.ft', 'lbf ft', 'lb-ft', 'lbft'],
  'KiloGM-PER-M3': ['kg/m^3'],
  'GM-PER-CentiM3': ['g/cc', 'g/cm^3'],
  'MicroS-PER-CentiM': ['uS/cm'],
  'MilliS-PER-CentiM': ['mS/cm'],
  'DeciB': ['decibel', 'db'],
  'PH': ['pH units'],
  'NTU': ['ntu'],
  'BTU_IT': ['BTU', 'Btu'],
  'BTU_IT-PER-HR': ['BTU/h', 'Btu/h', 'BTU/hr', 'Btu/hr', 'BTUH'],
  'MegaBTU_IT': ['MMBtu', 'MMBTU'],
  'MegaBTU_IT-PER-HR': ['MMBtu/h', 'MMBTU/hr', 'MMBtu/hr'],
  'THERM_US': ['therm', 'thm'],
  'KiloCAL': ['kcal'],
  'CAL_IT': ['cal'],
  'NUM': ['count', 'counts', 'cnt', 'pcs', 'ea', 'each'],
  'DEG': ['deg', 'degree', 'degrees'],
  'RAD': ['radian', 'radians'],
  'L': ['l', 'liter', 'litre', 'liters', 'litres', 'ltr'],
  'M3': ['m^3', 'cubic meter', 'cubic metre'],
  'GAL_US': ['gal', 'USgal', 'US gal'],
  'GAL_UK': ['imp gal', 'UKgal', 'igal'],
  'BBL_US': ['bbl', 'barrel', 'barrels'],
  'M': ['meter', 'metre', 'meters', 'metres'],
  'FT': ['feet', 'foot'],
  'IN': ['inch', 'inches'],
  'KiloGM': ['kilogram', 'kilograms', 'kgs'],
  'TONNE': ['t', 'tonne', 'tonnes', 'metric ton'],
  'LB': ['lbs', 'pound', 'pounds'],
  'G': ['g0', 'gn'],
};

const SUPERSCRIPTS: Readonly<Record<string, string>> = {
  '⁰': '0', '¹': '1', '²': '2', '³': '3', '⁴': '4', '⁵': '5', '⁶': '6', '⁷': '7', '⁸': '8', '⁹': '9', '⁻': '-',
  '₀': '0', '₁': '1', '₂': '2', '₃': '3', '₄': '4', '₅': '5', '₆': '6', '₇': '7', '₈': '8', '₉': '9',
};

/**
 * The plain-keyboard form of a QUDT symbol: digits for super- and subscripts, '.' for the
 * middle dot, 'deg' for the degree sign, 'u' for micro. 'm³/h' → 'm3/h', 'kW·h' → 'kW.h'.
 */
export function asciiSymbol(symbol: string): string {
  let text = '';
  for (const char of symbol) text += SUPERSCRIPTS[char] ?? char;
  return text
    .replace(/·/g, '.')
    .replace(/°([CFR])/g, 'deg$1')
    .replace(/°/g, 'deg')
    .replace(/[µμ]/g, 'u');
}

/** Both micro signs: QUDT mixes U+03BC (Greek mu) and U+00B5 (micro sign). */
function aliasMicroVariants(symbol: string): string[] {
  if (!/[µμ]/.test(symbol)) return [];
  return [symbol.replace(/μ/g, 'µ'), symbol.replace(/µ/g, 'μ')];
}

/** Inputs for aliasNames: what QUDT says about one unit. */
export interface AliasSource {
  localName: string;
  symbol: string;
  /** English labels (en and en-US spellings). */
  labels: readonly string[];
}

/**
 * Every spelling of a unit a client may use as a time series `unit`, first the symbol and its
 * keyboard forms, then curated spellings, then QUDT's English labels. Unique, in that order.
 */
export function aliasNames(source: AliasSource): string[] {
  const ascii = asciiSymbol(source.symbol);
  const candidates = [
    source.symbol,
    ...aliasMicroVariants(source.symbol),
    ascii,
    ascii.replace(/\./g, ''),
    ...(CURATED_ALIASES[source.localName] ?? []),
    ...source.labels,
  ];
  const seen = new Set<string>();
  const names: string[] = [];
  for (const candidate of candidates) {
    const name = candidate.trim();
    if (name === '' || seen.has(name)) continue;
    seen.add(name);
    names.push(name);
  }
  return names;
}
