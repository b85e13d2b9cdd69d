// Goal: aliasNames derives the keyboard spellings of a QUDT symbol and keeps curated and label
// spellings, unique and in order. Method: one line per symbol form.
import t from 'tap';
import { aliasNames, asciiSymbol } from './unit-aliases.ts';

t.test('asciiSymbol', async (t) => {
  const check = (symbol: string, expected: string) => t.equal(asciiSymbol(symbol), expected, `${symbol} → ${expected}`);
  check('m³/h', 'm3/h');
  check('kW·h', 'kW.h');
  check('°C', 'degC');
  check('°F/min', 'degF/min');
  check('°', 'deg');
  check('μS/cm', 'uS/cm');
  check('µm', 'um');
  check('mmH₂0', 'mmH20');
  check('m⁻¹', 'm-1');
  check('bar', 'bar');
});

t.test('aliasNames', async (t) => {
  t.same(aliasNames({ localName: 'KiloW-HR', symbol: 'kW·h', labels: ['Kilowatt Hour'] }),
    ['kW·h', 'kW.h', 'kWh', 'kW h', 'kilowatt hour', 'kilowatt-hour', 'Kilowatt Hour']);
  t.same(aliasNames({ localName: 'MicroM', symbol: 'μm', labels: ['Micrometer'] }), ['μm', 'µm', 'um', 'Micrometer']);
  t.same(aliasNames({ localName: 'X', symbol: 'x', labels: ['x', ' x ', ''] }), ['x'], 'unique, trimmed, no empty names');
});
