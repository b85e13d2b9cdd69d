// The quantities of the units catalogue and which QUDT units each one takes. Read only by
// build-catalogue.ts; runtime code reads the generated JSON instead.
//
// Order matters twice. A QUDT unit joins the first quantity whose kinds it carries, so specific
// quantities come before broad ones (Frequency takes Hz before Angular Velocity, whose units
// all convert to rad/s; Count takes NUM before Dimensionless Ratio). Mass concentrations
// (mg/L, µg/m³) share kg/m³ with densities and so are Density units. And findUnitByName
// resolves a spelling shared by units of two quantities to the quantity listed first, so
// process quantities come first: 'C' is °C before coulomb, 'pH' acidity before picohenry.

/** One quantity of the catalogue. */
export interface QuantitySpec {
  /** Name shown in `Unit.quantity`, e.g. 'Temperature'. Its snake_case form prefixes externalIds. */
  quantity: string;
  /** QUDT local name of the unit every `conversion` of this quantity targets (SI coherent where SI has one). */
  baseUnit: string;
  /** QUDT quantity kinds (local names) whose units belong to this quantity. */
  kinds: readonly string[];
  /** QUDT local names left out: obscure, historical, astronomical or duplicated elsewhere. */
  exclude?: RegExp;
  /** QUDT local names taken even though QUDT files them under another kind. */
  include?: readonly string[];
  /** QUDT local names kept as units of their own although QUDT marks them an exact match of another. */
  keepDistinct?: readonly string[];
}

/**
 * Left out of every quantity: Planck and CGS electromagnetic units, prefixes far outside
 * plant measurement (exa, peta, atto, femto and beyond), astronomical calendars.
 */
export const GLOBAL_EXCLUDE = /^Planck|_Ab$|_Stat$|^(Exa|Peta|Zetta|Yotta|Atto|Femto|Zepto|Yocto|Exbi|Pebi)|Sidereal|Julian|Synodic|TROPICAL|Metrology/;

export const QUANTITY_TABLE: readonly QuantitySpec[] = [
  { quantity: 'Temperature', baseUnit: 'K', kinds: ['Temperature', 'ThermodynamicTemperature'], exclude: /^(DecaK|MegaK)$/ },
  { quantity: 'Temperature Rate', baseUnit: 'K-PER-SEC', kinds: ['TemperaturePerTime'], exclude: /-PER-YR$/ },
  {
    quantity: 'Pressure', baseUnit: 'PA', kinds: ['ForcePerArea', 'VaporPressure', 'Pressure'],
    exclude: /^(BARAD|BARYE|DYN-PER-CentiM2|PDL-PER-.*|MegaPSI|MegaBAR|HectoBAR|MicroTORR|MicroATM|PicoPA|KiloGM-PER-M-SEC2|KIP_F-PER-IN2|KiloLB_F-PER-IN2|GM_F-PER-CentiM2|KiloGM_F-PER-MilliM2|KiloN-PER-MilliM2|N-PER-MilliM2|KiloN-PER-CentiM2|N-PER-CentiM2|MegaN-PER-M2|KiloN-PER-M2|N-PER-M2|FT_HG|ATM_T|IN_H2O_60DEG_F|IN_HG_60DEG_F|CentiM_H2O_4DEG_C|FT_H2O_39dot2DEG_F|IN_H2O_39dot2DEG_F)$/,
    keepDistinct: ['MilliBAR'],
  },
  {
    quantity: 'Length', baseUnit: 'M', kinds: ['Length'],
    exclude: /^(AU|LY|PARSEC|CH|CHAIN_US|FUR|ROD|GAUGE_FR|GA_Charriere|PCA|PT|ZOLL|BTU_IT-PER-LB_F|FM|FATH|DecaM|HectoM)$/,
  },
  { quantity: 'Area', baseUnit: 'M2', kinds: ['Area'], exclude: /^(ARE|DecaARE|BARN|PIXEL_AREA|KiloMIL_Circ|MIL_Circ|MI_US2|NanoM2)$/ },
  {
    quantity: 'Volume', baseUnit: 'M3', kinds: ['Volume', 'LiquidVolume', 'DryVolume'],
    exclude: /^(ANGSTROM3|FBM|GT|NT|MI3|MI_UK3|STANDARD|STR|TBSP|TSP|CUP|CUP_US|TON_.*|PK_.*|BU_.*|GI_.*|OZ_VOL_.*|PicoL|NanoL|DecaL|DecaM3|AC-FT_US|KiloCubicFT|BBL_UK_PET)$/,
  },
  {
    quantity: 'Mass', baseUnit: 'KiloGM', kinds: ['Mass'],
    exclude: /^(AMU|U|CARAT|DRAM_.*|DWT|PENNYWEIGHT|PFUND|MOMME_.*|Quarter_UK|Stone_UK|TON_Assay|EarthMass|SolarMass|LunarMass|Hundredweight_.*|CWT_.*|GRAIN|OZ_M|LB_T|DecaGM|DeciGM|HectoGM|DeciTONNE|DeciTON_Metric|KiloTON_Metric|MegaTON|MegaGM|OZ_TROY)$/,
  },
  {
    quantity: 'Time', baseUnit: 'SEC', kinds: ['Time'],
    exclude: /-PER-|^(SH|KiloSEC|MegaSEC|KiloYR|MegaYR|MO_MeanGREGORIAN|YR_Common|DeciSEC)$/,
  },
  {
    quantity: 'Speed', baseUnit: 'M-PER-SEC', kinds: ['Velocity', 'LinearVelocity', 'Speed'],
    exclude: /^(BFT|FT3-PER-MIN-FT2|GigaHZ-M|MegaHZ-M|HZ-M|CentiM-PER-KiloYR|CentiM-PER-YR|IN-PER-YR|M-PER-YR|MilliM-PER-YR|MI-PER-SEC|MI-PER-MIN|MI_N-PER-MIN|YD-PER-.*|KiloM-PER-SEC)$/,
  },
  {
    quantity: 'Acceleration', baseUnit: 'M-PER-SEC2', kinds: ['Acceleration', 'LinearAcceleration'],
    exclude: /^(KN-PER-SEC|KiloPA-M2-PER-GM|MI_US-PER-SEC2|YD-PER-SEC2|KiloM-PER-SEC2|MicroM-PER-SEC2|GALILEO|MilliGALILEO)$/,
  },
  {
    quantity: 'Volume Flow Rate', baseUnit: 'M3-PER-SEC', kinds: ['VolumeFlowRate', 'VolumePerTime'],
    exclude: /^(BU_.*|PK_.*|GI_.*|OZ_VOL_.*|PINT_.*|QT_.*|YD3-.*|BBL_UK_PET-.*|IN3-.*)$/,
  },
  {
    quantity: 'Mass Flow Rate', baseUnit: 'KiloGM-PER-SEC', kinds: ['MassFlowRate', 'MassPerTime'],
    exclude: /^(OZ-.*|SLUG-.*|DYN-SEC-PER-CentiM|N-SEC-PER-M|NanoGM-PER-DAY|MilliGM-PER-(DAY|HR|MIN)|TON_Metric-.*|TON_UK-.*|TON_US-.*|TONNE-PER-MIN|TONNE-PER-SEC)$/,
  },
  {
    quantity: 'Density', baseUnit: 'KiloGM-PER-M3', kinds: ['Density', 'MassDensity', 'MassConcentration'],
    exclude: /^(DEGREE_.*|.*-PER-DeciL|.*-PER-MicroL|FemtoGM-.*|PicoGM-.*|NanoGM-.*|GRAIN-.*|OZ-.*|SLUG-.*|TON_.*|LB-PER-YD3|LB-PER-GAL_IMP|LB-PER-M3|MegaGM-PER-M3|KiloGM-PER-CentiM3|MicroGM-PER-MilliL|MilliGM-PER-MilliL|GM-PER-DeciM3)$/,
  },
  { quantity: 'Acidity', baseUnit: 'PH', kinds: ['Acidity'] },
  { quantity: 'Turbidity', baseUnit: 'NTU', kinds: ['Turbidity'] },
  { quantity: 'Amount of Substance', baseUnit: 'MOL', kinds: ['AmountOfSubstance'], exclude: /^(IU|MOL_LB|MilliOSM|OSM|CentiMOL|PicoMOL|NanoMOL|NCM_1ATM_0DEG_C_NL|SCM_1ATM_0DEG_C|SCM_1ATM_15DEG_C_NL|SCM_1ATM_15DEG_C_ISO)$/ },
  { quantity: 'Molar Flow Rate', baseUnit: 'MOL-PER-SEC', kinds: ['MolarFlowRate'] },
  { quantity: 'Molar Concentration', baseUnit: 'MOL-PER-M3', kinds: ['Concentration', 'AmountOfSubstanceConcentration'], exclude: /^(CentiMOL-PER-L|PicoMOL-.*|MOL-PER-DeciM3)$/ },
  {
    quantity: 'Energy', baseUnit: 'J', kinds: ['Energy', 'ThermalEnergy'],
    exclude: /^(BTU_\d+DEG_F|BTU_MEAN|CAL_\d+DEG_C|CAL_MEAN|KiloCAL_Mean|TON_FG-HR|E_h|EV|KiloEV|MegaEV|GigaEV|ERG|FT-PDL|QUAD|TonEnergy|MegaTOE|THM_EEC|THM_US|BTU_TH|KiloBTU_TH|CAL_TH|MicroJ|NanoJ|PicoJ|W-SEC)$/,
  },
  {
    quantity: 'Power', baseUnit: 'W', kinds: ['Power', 'ElectricPower', 'HeatFlowRate'],
    exclude: /^(.*BAR-.*-PER-SEC|.*PA-.*-PER-SEC|PSI-.*|ERG-PER-SEC|TeraW-HR-PER-YR|FT-LB_F-PER-(HR|MIN)|HP_(Boiler|H2O|Brake)|KiloGM_F-M-PER-SEC|(Micro|Milli|Nano|Pico|Tera|Giga|Mega|Kilo)?J-PER-(SEC|DAY|MIN)|KiloJ-PER-SEC|BTU_TH-.*|KiloBTU_TH-.*|KiloCAL_TH-.*|CAL_TH-.*|PicoW|NanoW|TeraW|BTU_IT-PER-SEC|BTU_IT-PER-MIN|KiloCAL-PER-SEC)$/,
  },
  { quantity: 'Apparent Power', baseUnit: 'VA', kinds: ['ApparentPower'], exclude: /^(Nano|Pico|Micro|Tera)VA$/ },
  { quantity: 'Reactive Power', baseUnit: 'VAR', kinds: ['ReactivePower'], exclude: /^(Nano|Pico|Micro|Tera)VAR$/ },
  {
    quantity: 'Force', baseUnit: 'N', kinds: ['Force'],
    exclude: /^(CentiN|DeciN|GigaN|KiloGM-M-PER-SEC2|KiloPOND|POND|MegaLB_F|PDL|GM_F|NanoN|TON_F_US|KIP_F|OZ_F)$/,
  },
  { quantity: 'Torque', baseUnit: 'N-M', kinds: ['Torque', 'MomentOfForce'], exclude: /^(DYN-.*|PDL-.*|IN-PDL|DeciN-M|CentiN-M|MicroN-M|OZ_F-IN)$/ },
  { quantity: 'Electric Current', baseUnit: 'A', kinds: ['ElectricCurrent'], exclude: /^(BIOT|TeraA|GigaA)$/ },
  { quantity: 'Voltage', baseUnit: 'V', kinds: ['Voltage', 'ElectricPotentialDifference', 'ElectricPotential'], exclude: /^(TeraV|GigaV|PicoV)$/ },
  { quantity: 'Electric Resistance', baseUnit: 'OHM', kinds: ['Resistance'], exclude: /^(TeraOHM)$/ },
  {
    quantity: 'Electric Charge', baseUnit: 'C', kinds: ['ElectricCharge'],
    exclude: /^(E|ElementaryCharge|F|FR|CentiC|DecaC|DeciC|HectoC|GigaC|TeraC|KiloJ-PER-KiloV|PicoC|MilliA-SEC|A-SEC)$/,
  },
  { quantity: 'Capacitance', baseUnit: 'FARAD', kinds: ['Capacitance'], exclude: /^(KiloFARAD)$/ },
  { quantity: 'Inductance', baseUnit: 'H', kinds: ['Inductance'], exclude: /^(KiloH)$/ },
  { quantity: 'Electric Conductance', baseUnit: 'S', kinds: ['Conductance'], exclude: /^(MHO|MicroMHO|DeciS|MegaS)$/ },
  { quantity: 'Electrical Conductivity', baseUnit: 'S-PER-M', kinds: ['Conductivity', 'ElectrolyticConductivity'], exclude: /^(KiloS-PER-M|MegaS-PER-M|PicoS-PER-M|NanoS-PER-M|DeciS-PER-M)$/ },
  { quantity: 'Magnetic Flux Density', baseUnit: 'T', kinds: ['MagneticFluxDensity'], exclude: /^(GAMMA|KiloT|KiloGAUSS)$/ },
  {
    quantity: 'Frequency', baseUnit: 'HZ', kinds: ['Frequency'],
    exclude: /^(NUM-PER-.*|PERCENT-PER-.*|PPTH-PER-HR|PER-MilliSEC|PER-WK|PER-MO|PER-YR|PER-DAY|PetaHZ|TeraHZ|SAMPLE-PER-SEC)$/,
    include: ['CYC-PER-SEC'],
  },
  { quantity: 'Angular Velocity', baseUnit: 'RAD-PER-SEC', kinds: ['AngularVelocity', 'RotationalFrequency', 'AngularFrequency'], exclude: /^(CYC-PER-SEC)$/ },
  { quantity: 'Angle', baseUnit: 'RAD', kinds: ['PlaneAngle', 'Angle'], exclude: /^(GON|MIL|MilliARCSEC|MIN_Angle|MicroRAD|2PiRAD)$/ },
  { quantity: 'Count', baseUnit: 'NUM', kinds: ['Count'], exclude: /^(BILLION_Long|PIXEL_COUNT|UNITLESS|ONE)$/ },
  {
    quantity: 'Dimensionless Ratio', baseUnit: 'FRACTION',
    kinds: ['DimensionlessRatio', 'RelativeHumidity', 'AmountOfSubstanceFraction', 'VolumeFraction', 'MassRatio'],
    exclude: /^(GR|NUM|ONE-PER-ONE|PERMITTIVITY_REL|PSU|UNITLESS|PPTM|PPQ|FemtoGM-.*|PicoGM-.*|NanoGM-PER-MilliGM|MicroGM-PER-MilliGM|MicroM3-PER-MilliL|MilliM3-PER-M3|CentiM3-PER-M3|MilliL-PER-M3|KiloGM-PER-KiloGM|GM-PER-GM|LB-PER-LB|M3-PER-M3|L-PER-L|CentiM3-PER-CentiM3|GM-PER-HectoGM)$/,
  },
  { quantity: 'Sound Pressure Level', baseUnit: 'DeciB', kinds: ['SoundPressureLevel'], exclude: /^(B|PHON|DeciB_A|DeciB_C|DeciB_M|B_.*)$/ },
  { quantity: 'Dynamic Viscosity', baseUnit: 'PA-SEC', kinds: ['DynamicViscosity'], exclude: /^(DecaPOISE|KiloPOISE|MicroPOISE|GM-PER-CentiM-SEC|KiloGM-PER-M-(DAY|HR|MIN|SEC)|LB-PER-FT-.*|LB_F-SEC-PER-.*|PDL-.*|SLUG-.*|N-SEC-PER-M2)$/ },
  { quantity: 'Kinematic Viscosity', baseUnit: 'M2-PER-SEC', kinds: ['KinematicViscosity'], include: ['M2-PER-SEC', 'MilliM2-PER-SEC', 'CentiM2-PER-SEC', 'FT2-PER-SEC'] },
  { quantity: 'Specific Energy', baseUnit: 'J-PER-KiloGM', kinds: ['SpecificEnergy'], exclude: /^(ERG-PER-GM|KiloLB_F-FT-PER-LB|MilliJ-PER-GM|N-M-PER-KiloGM|CAL_TH-PER-GM|BTU_TH-PER-LB|KiloCAL-PER-GM|CAL_IT-PER-GM)$/ },
  {
    quantity: 'Specific Heat Capacity', baseUnit: 'J-PER-KiloGM-K', kinds: ['SpecificHeatCapacity'],
    exclude: /^(M2-PER-SEC2-K|CAL_TH-.*|BTU_TH-.*|BTU_IT-PER-LB-DEG_R|KiloCAL-PER-GM-DEG_C|CAL_IT-PER-GM-K)$/,
  },
  {
    quantity: 'Thermal Conductivity', baseUnit: 'W-PER-M-K', kinds: ['ThermalConductivity'],
    exclude: /^(BTU_TH-.*|CAL_TH-.*|.*-SEC-.*DEG_F|BTU_IT-PER-SEC-FT-DEG_R|KiloCAL-PER-CentiM-SEC-DEG_C|CAL_IT-PER-SEC-CentiM-K|BTU_IT-IN-PER-HR-FT2-DEG_F)$/,
  },
  {
    quantity: 'Heat Transfer Coefficient', baseUnit: 'W-PER-M2-K', kinds: ['CoefficientOfHeatTransfer'],
    exclude: /^(BTU_TH-.*|CAL_TH-.*|CAL_IT-.*|KiloGM-PER-SEC3-K|BTU_IT-PER-(FT2-SEC|SEC-FT2)-DEG_(F|R)|BTU_IT-PER-HR-FT2-DEG_(F|R))$/,
  },
  {
    quantity: 'Heat Flux', baseUnit: 'W-PER-M2', kinds: ['PowerPerArea', 'HeatFluxDensity', 'Irradiance'],
    exclude: /^(BTU_TH-.*|CAL_TH-.*|ERG-.*|FT-LB_F-.*|KiloCAL-.*|M-PA-PER-SEC|J-PER-CentiM2-DAY|BTU_IT-PER-(FT2-SEC|SEC-FT2|IN2-SEC|HR-FT2)|NanoW-PER-M2|PicoW-PER-M2|W-PER-IN2)$/,
  },
  { quantity: 'Energy Density', baseUnit: 'J-PER-M3', kinds: ['EnergyDensity'], exclude: /^(ERG-PER-CentiM3|BTU_TH-PER-FT3)$/ },
  { quantity: 'Information', baseUnit: 'BIT', kinds: ['InformationEntropy'], exclude: /^(BAN|ERLANG|HART|NAT|SHANNON|TebiBIT|TebiBYTE|ExbiBIT)$/ },
  { quantity: 'Data Rate', baseUnit: 'BIT-PER-SEC', kinds: ['DataRate'], exclude: /^(TeraBIT-PER-SEC)$/ },
  { quantity: 'Illuminance', baseUnit: 'LUX', kinds: ['LuminousFluxPerArea', 'Illuminance'], exclude: /^(PHOT)$/ },
  { quantity: 'Luminous Intensity', baseUnit: 'CD', kinds: ['LuminousIntensity'], exclude: /^(CD_IN|CP|HK)$/ },
  { quantity: 'Luminous Flux', baseUnit: 'LM', kinds: ['LuminousFlux'] },
  { quantity: 'Radioactivity', baseUnit: 'BQ', kinds: ['Activity'], exclude: /^(TeraBQ|NanoBQ|MilliBQ|KiloCI)$/ },
  { quantity: 'Absorbed Dose', baseUnit: 'GRAY', kinds: ['AbsorbedDose'], exclude: /^(KiloGRAY|MegaGRAY|NanoGRAY|CentiGRAY|MilliRAD_R)$/ },
  { quantity: 'Dose Equivalent', baseUnit: 'SV', kinds: ['DoseEquivalent'], exclude: /^(MilliR_man|R_man|NanoSV)$/ },
];
