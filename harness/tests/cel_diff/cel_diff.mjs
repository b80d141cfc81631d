// cel_diff.mjs - differential check of drabench's CEL engine against @bufbuild/cel.
//
// Generates random well-typed CEL expressions over a device's attributes (standard CEL only:
// arithmetic, strings, lists, maps, macros, comparisons, conversions, runtime errors), evaluates
// each with drabench (the cel_diff executable, DRA environment: homogeneous aggregate literals,
// cross-type numeric ordering, constant folding) and with @bufbuild/cel on the same device, and
// fails on any difference in value or in error / non-error. Compile errors from drabench are
// failures too: every generated expression type-checks under cel-go as Kubernetes configures it,
// except those the generator marks as refused by cel-go's checker (R13), which drabench must
// refuse with a type error.
//
// The judge is cel-go. Where @bufbuild/cel differs from cel-go, the difference is encoded here,
// one rule per cause (R1..R14 below; the table is in core/cel/README.md). A rule overrides a
// bufbuild function with cel-go's semantics (its `funcs` option), rewrites bufbuild's parsed
// AST before planning (R6, R7, R14), keeps the generator away from a parse difference (R10), or
// marks what cel-go's checker refuses (R13: the generator sets expectCompile; drabench must
// answer with a type error, and bufbuild, which has no such checker, is not asked).
// SKIP_RULES would list answers that cannot be compared (none today); skips are counted.
//
// Usage: node cel_diff.mjs --exe PATH [--seed N] [--count N] [--batch N] [--show N] [-v]
//                          [--plant K] [--expect-differences N]
//   --plant K                 self-test: replace drabench's answer to the K-th expression (1-based)
//                             by a wrong value, which the comparison must report
//   --expect-differences N    exit 0 only when exactly N differences were found (else 3)
//   (numbers are decimal; --seed 0..4294967295, the generator's 32-bit state)
// Exit status: 0 no difference, 3 differences found, 2 usage error, 4 environment error.
import { spawnSync } from "node:child_process";
import { celFunc, CelScalar, isCelError, isCelList, isCelMap, isCelUint, celUint, plan, parse,
         celEnv, listType, mapType, celMap } from "@bufbuild/cel";

const { BOOL, DOUBLE, INT, STRING, UINT } = CelScalar;

// ---- options ---------------------------------------------------------------------------------
const opt = { exe: null, seed: 1, count: 5000, batch: 2000, show: 20, verbose: false, plant: 0,
              expect: -1 };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const next = () => {
    if (i + 1 >= process.argv.length) usage(`${a} needs a value`);
    return process.argv[++i];
  };
  // decimal only and range-checked: Number() would take "0x10", " 3" and "" (0), and the
  // generator's state is 32 bits, so a larger seed would silently equal a smaller one
  const num = (max) => {
    const v = next();
    if (!/^[0-9]+$/.test(v) || !(Number(v) <= max)) usage(`${a} wants a whole number 0..${max}, got '${v}'`);
    return Number(v);
  };
  if (a === "--exe") opt.exe = next();
  else if (a === "--seed") opt.seed = num(4294967295);
  else if (a === "--count") opt.count = num(Number.MAX_SAFE_INTEGER);
  else if (a === "--batch") opt.batch = num(Number.MAX_SAFE_INTEGER);
  else if (a === "--show") opt.show = num(Number.MAX_SAFE_INTEGER);
  else if (a === "--plant") opt.plant = num(Number.MAX_SAFE_INTEGER);
  else if (a === "--expect-differences") opt.expect = num(Number.MAX_SAFE_INTEGER);
  else if (a === "-v" || a === "--verbose") opt.verbose = true;
  else if (a === "-h" || a === "--help") {
    console.log("usage: node cel_diff.mjs --exe PATH [--seed N] [--count N] [--batch N] [--show N] [-v]\n" +
                "                       [--plant K] [--expect-differences N]");
    process.exit(0);
  } else usage(`unknown argument ${a}`);
}
function usage(msg) {
  console.error(`cel_diff: ${msg}`);
  process.exit(2);
}
if (!opt.exe) usage("--exe PATH (the cel_diff executable) is required");
for (const k of ["seed", "count", "batch", "show", "plant"])
  if (!Number.isSafeInteger(opt[k]) || opt[k] < 0) usage(`--${k} must be a non-negative integer`);
if (opt.batch === 0) opt.batch = 1;

// ---- deterministic random numbers (mulberry32) -------------------------------------------------
let rs = opt.seed >>> 0;
function rnd() {
  rs = (rs + 0x6d2b79f5) >>> 0;
  let t = rs;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const ri = (n) => Math.floor(rnd() * n);
const pick = (xs) => xs[ri(xs.length)];
const chance = (p) => rnd() < p;

// ---- cel-go semantics where bufbuild differs (RULES) --------------------------------------------
// R1 string(double): cel-go formats with Go's fmt "%g" (strconv.FormatFloat(d, 'g', -1, 64):
//    shortest round-trip digits, exponent form when the decimal exponent is < -4 or >= 6, at
//    least two exponent digits, "+Inf", "-Inf", "NaN"); bufbuild uses JavaScript's
//    Number#toString ("1000000" where Go prints "1e+06").
function goFormatG(d) {
  if (Number.isNaN(d)) return "NaN";
  if (d === Infinity) return "+Inf";
  if (d === -Infinity) return "-Inf";
  if (d === 0) return Object.is(d, -0) ? "-0" : "0";
  // shortest round-trip digits and decimal exponent, from JavaScript's exponential form
  const e = d.toExponential(); // "-1.2345e+6": shortest digits that round-trip
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(e);
  const neg = m[1], digits = m[2] + (m[3] || ""), x = Number(m[4]);
  // Go: %e when x < -4 || x >= eprec, with eprec = 6 for the shortest form
  const nd = digits.length, dp = x + 1;
  if (x < -4 || x >= 6) {
    const mant = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    const ax = Math.abs(x);
    return `${neg}${mant}e${x < 0 ? "-" : "+"}${ax < 10 ? "0" + ax : ax}`;
  }
  if (dp <= 0) return `${neg}0.${"0".repeat(-dp)}${digits}`;
  if (dp >= nd) return `${neg}${digits}${"0".repeat(dp - nd)}`;
  return `${neg}${digits.slice(0, dp)}.${digits.slice(dp)}`;
}

// R2 int(string), uint(string): cel-go uses strconv.ParseInt(s, 10, 64) / ParseUint(s, 10, 64):
//    optional sign (int only), ASCII digits only, no whitespace, no underscores (base 10), range
//    checked. bufbuild uses JavaScript's BigInt()/Number() rules (whitespace, "0x", "" accepted).
function goParseInt(s, unsigned) {
  let i = 0, neg = false;
  if (!unsigned && (s[0] === "+" || s[0] === "-")) { neg = s[0] === "-"; i = 1; }
  if (i >= s.length) throw new Error(`strconv.Parse: parsing ${JSON.stringify(s)}: invalid syntax`);
  for (let j = i; j < s.length; j++)
    if (s[j] < "0" || s[j] > "9") throw new Error(`strconv.Parse: parsing ${JSON.stringify(s)}: invalid syntax`);
  let v = BigInt(s.slice(i));
  if (neg) v = -v;
  if (unsigned ? v > 18446744073709551615n : v > 9223372036854775807n || v < -9223372036854775808n)
    throw new Error(`strconv.Parse: parsing ${JSON.stringify(s)}: value out of range`);
  return v;
}

// R3 double(string): cel-go uses strconv.ParseFloat(s, 64): Go float literal syntax (decimal or
//    hexadecimal mantissa with mandatory p exponent), '_' only between digits (or after a base
//    prefix), "inf"/"infinity"/"nan" in any case (sign allowed on inf), no whitespace; a value
//    beyond the double range is a range error (1e400), underflow rounds to 0. bufbuild uses
//    JavaScript's Number() (whitespace trimmed, "" is 0, no hex floats, no underscores).
function goParseFloat(s) {
  const bad = () => { throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(s)}: invalid syntax`); };
  let body = s, sign = 1;
  if (body[0] === "+" || body[0] === "-") { sign = body[0] === "-" ? -1 : 1; body = body.slice(1); }
  const low = body.toLowerCase();
  if (low === "inf" || low === "infinity") return sign * Infinity;
  if (low === "nan" && s.length === 3) return NaN;
  if (!goUnderscoreOK(s)) bad();
  const clean = body.replace(/_/g, "");
  let v;
  if (/^0[xX]/.test(clean)) {
    const m = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?\d+)$/.exec(clean);
    if (!m || (m[1] + (m[2] || "")).length === 0) bad();
    v = hexFloat(m[1], m[2] || "", Number(m[3]));
  } else {
    if (!/^(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(clean)) bad();
    v = Number(clean);
  }
  if (!Number.isFinite(v)) throw new Error(`strconv.ParseFloat: parsing ${JSON.stringify(s)}: value out of range`);
  return sign * v;
}
function goUnderscoreOK(s) {
  let saw = "^", i = 0;
  if (s[0] === "+" || s[0] === "-") s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === "0" && "box".includes(s[1].toLowerCase())) {
    i = 2; saw = "0"; hex = s[1].toLowerCase() === "x";
  }
  for (; i < s.length; i++) {
    const c = s[i];
    if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) { saw = "0"; continue; }
    if (c === "_") { if (saw !== "0") return false; saw = "_"; continue; }
    if (saw === "_") return false;
    saw = "!";
  }
  return saw !== "_";
}
function hexFloat(ip, fp, exp) {
  // exact: mantissa as a BigInt, scaled by 2^(exp - 4*len(fp)); correctly rounded by building
  // the double from the top 54 bits with round-half-even.
  let mant = BigInt("0x0" + ip + fp);
  let e2 = exp - 4 * fp.length;
  if (mant === 0n) return 0;
  const bits = mant.toString(2).length;
  if (bits > 64) { // keep 64 significant bits plus a sticky bit
    const sh = BigInt(bits - 64);
    const sticky = (mant & ((1n << sh) - 1n)) !== 0n ? 1n : 0n;
    mant = (mant >> sh) | sticky;
    e2 += bits - 64;
  }
  // Number(mant) rounds to 53 bits correctly (round-half-even) for mant < 2^64... then scale by
  // powers of two, exact unless the result is subnormal or overflows.
  return scale2(mant, e2);
}
function scale2(mant, e2) {
  // correctly rounded mant * 2^e2 including subnormals
  const bits = mant.toString(2).length;
  const top = bits + e2; // value in [2^(top-1), 2^top)
  let keep = 53;
  if (top - 1 < -1022) keep = 53 - (-1022 - (top - 1));
  if (keep <= 0) {
    if (keep < 0) return 0;
    // half of the smallest subnormal: round half to even (to 0) unless above half
    const half = 1n << BigInt(bits - 1);
    return mant > half ? 5e-324 : 0;
  }
  let m = mant, e = e2;
  if (bits > keep) {
    const sh = BigInt(bits - keep);
    const rem = m & ((1n << sh) - 1n), half = 1n << (sh - 1n);
    m >>= sh;
    e += bits - keep;
    if (rem > half || (rem === half && (m & 1n))) m += 1n;
  }
  let r = Number(m);
  while (e > 0) { const k = Math.min(e, 1000); r *= 2 ** k; e -= k; }
  while (e < 0) { const k = Math.min(-e, 1000); r /= 2 ** k; e += k; }
  return r;
}

// R4 ordering (<, <=, >, >=) with a NaN operand: cel-go's Double/Int/Uint Compare answers the
//    error "NaN values cannot be ordered"; bufbuild answers false (JavaScript comparison).
// R5 string ordering: cel-go compares strings byte-wise (UTF-8, Go's strings.Compare); bufbuild
//    compares UTF-16 code units (differs for characters above U+FFFF vs U+E000..U+FFFF).
const utf8 = new TextEncoder();
function cmpStr(a, b) {
  const x = utf8.encode(a), y = utf8.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}
const nanCmp = () => { throw new Error("NaN values cannot be ordered"); };
const ORD = [["_<_", (c) => c < 0], ["_<=_", (c) => c <= 0], ["_>_", (c) => c > 0], ["_>=_", (c) => c >= 0]];
const num = (x) => (typeof x === "bigint" ? Number(x) : isCelUint(x) ? Number(x.value) : x);
const ruleFuncs = [
  celFunc("string", [DOUBLE], STRING, goFormatG),
  celFunc("bool", [STRING], BOOL, (s) => goParseBool(s)),
  celFunc("_/_", [UINT, UINT], UINT, (l, r) => uintDiv(l, r)),
  celFunc("_%_", [INT, INT], INT, (l, r) => intMod(l, r)),
  celFunc("int", [STRING], INT, (s) => goParseInt(s, false)),
  celFunc("uint", [STRING], UINT, (s) => celUint(goParseInt(s, true))),
  celFunc("double", [STRING], DOUBLE, goParseFloat),
];
for (const [op, test] of ORD) {
  for (const [l, r] of [[DOUBLE, DOUBLE], [DOUBLE, INT], [INT, DOUBLE], [DOUBLE, UINT], [UINT, DOUBLE]])
    ruleFuncs.push(celFunc(op, [l, r], BOOL, (a, b) => {
      const x = num(a), y = num(b);
      if (Number.isNaN(x) || Number.isNaN(y)) nanCmp();
      return test(x < y ? -1 : x > y ? 1 : 0);
    }));
  ruleFuncs.push(celFunc(op, [STRING, STRING], BOOL, (a, b) => test(cmpStr(a, b))));
}
// R7 cel-go's OptOptimize planner (Kubernetes compiles with it) folds, when building the
//    program, (a) a type conversion whose argument is a constant (a literal, or a constant made
//    by this same rule, or a list / map literal of constants): if the conversion fails, the
//    program fails to build ("program instantiation failed", a compile error for the selector,
//    even where evaluation would never reach it); (b) `x in <constant list>` into a set lookup:
//    `x in []` is the constant false (x is not evaluated), and membership is by Go value
//    equality of the set keys (the element, plus the lossless int/uint forms of a double
//    element and the double/int/uint forms of an integer element). bufbuild does neither; the
//    harness applies both to bufbuild's parsed AST before planning (optOptimize below).
const CONVERSIONS = new Set(["int", "uint", "double", "string", "bytes", "bool", "dyn", "type"]);
class InstantiationError extends Error {}
let nextId = 1n << 40n; // ids of the nodes the harness adds
function isPrimitive(v) {
  return typeof v === "bigint" || typeof v === "number" || typeof v === "string" ||
    typeof v === "boolean" || isCelUint(v);
}
function setKeyMatch(el, x) {
  const kind = (v) => (typeof v === "bigint" ? "i" : typeof v === "number" ? "d" : isCelUint(v) ? "u" : typeof v);
  const ke = kind(el), kx = kind(x);
  if (ke === kx) return ke === "u" ? el.value === x.value : el === x;
  const I64 = 9223372036854775808, U64 = 18446744073709551616;
  switch (ke + kx) {
    case "di": return el > -I64 && el < I64 && Number.isInteger(el) && BigInt(el) === x;
    case "du": return el >= 0 && el < U64 && Number.isInteger(el) && BigInt(el) === x.value;
    case "id": return Number(el) === x;
    case "iu": return el >= 0n && el === x.value;
    case "ud": return Number(el.value) === x;
    case "ui": return el.value <= 9223372036854775807n && el.value === x;
  }
  return false;
}
function optOptimize(node) {
  // returns true when node is a constant to cel-go's planner; rewrites `@in` nodes
  const k = node.exprKind;
  switch (k.case) {
    case "constExpr": return true;
    case "identExpr": return false;
    case "selectExpr":
      optOptimize(k.value.operand);
      if (k.value.testOnly) {
        // R14: has(x.f) by cel-go's qualifier (refQualify): a map answers whether key "f" is
        // present, a list is an error, any other value has no keys (false)
        const field = { $typeName: "cel.expr.Expr", id: nextId++, exprKind: { case: "constExpr",
          value: { $typeName: "cel.expr.Constant", constantKind: { case: "stringValue", value: k.value.field } } } };
        node.exprKind = { case: "callExpr", value: { $typeName: "cel.expr.Expr.Call",
          function: "__cel_go_has", args: [k.value.operand, field] } };
      }
      return false;
    case "listExpr": {
      let all = k.value.optionalIndices.length === 0;
      for (const e of k.value.elements) all = optOptimize(e) && all;
      return all;
    }
    case "structExpr": {
      let all = k.value.messageName === "";
      for (const en of k.value.entries) {
        const a = en.keyKind.case === "mapKey" ? optOptimize(en.keyKind.value) : false;
        const b = optOptimize(en.value);
        all = all && a && b && !en.optionalEntry;
      }
      if (k.value.messageName === "" && k.value.entries.every((en) => en.keyKind.case === "mapKey" && !en.optionalEntry)) {
        const elements = [];
        for (const en of k.value.entries) elements.push(en.keyKind.value, en.value);
        const list = { $typeName: "cel.expr.Expr", id: nextId++, exprKind: { case: "listExpr",
          value: { $typeName: "cel.expr.Expr.CreateList", elements, optionalIndices: [] } } };
        node.exprKind = { case: "callExpr", value: { $typeName: "cel.expr.Expr.Call",
          function: "__cel_go_map", args: [list] } };
      }
      return all;
    }
    case "comprehensionExpr": {
      const c = k.value;
      for (const e of [c.iterRange, c.accuInit, c.loopCondition, c.loopStep, c.result]) optOptimize(e);
      return false;
    }
    case "callExpr": {
      const c = k.value;
      if (c.target) optOptimize(c.target);
      const consts = c.args.map(optOptimize);
      if (!c.target && c.args.length === 1 && consts[0] && CONVERSIONS.has(c.function)) {
        const r = plan(env, node)();
        if (isCelError(r)) throw new InstantiationError(`program instantiation failed: ${r.message}`);
        return true;
      }
      if (!c.target && c.function === "@in" && c.args.length === 2 && consts[1] &&
          c.args[1].exprKind.case === "listExpr") {
        const lst = c.args[1].exprKind.value.elements;
        if (lst.length === 0) {
          node.exprKind = { case: "constExpr",
            value: { $typeName: "cel.expr.Constant", constantKind: { case: "boolValue", value: false } } };
          return true;
        }
        const vals = lst.map((e) => plan(env, e)());
        if (vals.every(isPrimitive)) c.function = "__cel_go_set_in";
      }
      return false;
    }
  }
  return false;
}

// R8 bool(string): cel-go uses strconv.ParseBool ("1", "t", "T", "TRUE", "true", "True" and
//    "0", "f", "F", "FALSE", "false", "False"); bufbuild rejects "T" and "F".
const GO_TRUE = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const GO_FALSE = new Set(["0", "f", "F", "FALSE", "false", "False"]);
function goParseBool(s) {
  if (GO_TRUE.has(s)) return true;
  if (GO_FALSE.has(s)) return false;
  throw new Error(`strconv.ParseBool: parsing ${JSON.stringify(s)}: invalid syntax`);
}
// R9 uint division: bufbuild checks the quotient of two uints against the int64 range ("int
//    overflow during divide" for a dividend >= 2^63); cel-go divides uint64 values.
function uintDiv(l, r) {
  if (r.value === 0n) throw new Error("divide by zero");
  return celUint(l.value / r.value);
}

// R11 equality across int/uint and double: cel-go's Int/Uint Equal(Double) converts the integer
//    to double (lossy: 9223372036854775807u == 9223372036854775807.0); bufbuild compares exactly.
//    The harness overrides _==_, _!=_ and `in` over lists with cel-go's equality.
function celGoEquals(a, b) {
  const kind = (v) => v === null ? "null" : typeof v === "bigint" ? "i" : typeof v === "number" ? "d"
    : isCelUint(v) ? "u" : v instanceof Uint8Array ? "y" : isCelList(v) ? "l" : isCelMap(v) ? "m" : typeof v;
  const ka = kind(a), kb = kind(b);
  const ival = (v) => (isCelUint(v) ? v.value : v);
  if ("iud".includes(ka) && "iud".includes(kb) && ka.length === 1 && kb.length === 1) {
    if (ka === "d" || kb === "d") {
      const x = ka === "d" ? a : Number(ival(a)), y = kb === "d" ? b : Number(ival(b));
      return x === y; // NaN is never equal
    }
    return ival(a) === ival(b);
  }
  if (ka !== kb) return false;
  switch (ka) {
    case "null": return true;
    case "y": return a.length === b.length && a.every((x, i) => x === b[i]);
    case "l": {
      if (a.size !== b.size) return false;
      for (let i = 0; i < a.size; i++) if (!celGoEquals(a.get(i), b.get(i))) return false;
      return true;
    }
    case "m": {
      if (a.size !== b.size) return false;
      for (const [k, v] of a.entries()) {
        if (!b.has(isCelUint(k) ? k : k)) return false;
        if (!celGoEquals(v, b.get(k))) return false;
      }
      return true;
    }
    default: return a === b;
  }
}

// R12 int modulo: cel-go's moduloInt64Checked makes MinInt64 % -1 the error "integer overflow";
//    bufbuild answers 0.
function intMod(l, r) {
  if (r === 0n) throw new Error("modulus by zero");
  if (l === -9223372036854775808n && r === -1n) throw new Error("integer overflow");
  return l % r;
}

// R6 map literals: bufbuild rejects a repeated key ("map key conflict") and bool keys
//    ("unsupported key type"), and keeps a repeated uint key twice (its CelUint keys compare by
//    object identity); cel-go assigns the entries in order to a Go map: bool keys are fine and a
//    repeated key (same type and value) keeps the last value. The harness rewrites every map
//    literal {k1: v1, ...} into __cel_go_map([k1, v1, ...]) (in optOptimize), which builds the
//    map by cel-go's rule after the keys and values were evaluated in order.
const SKIP_RULES = [];

// R14 has(x.f): cel-go's qualifier answers a map by its key "f", fails on a list ("unsupported
//    index type 'string' in list") and answers false for any other value (Kubernetes does not
//    set EnableErrorOnBadPresenceTest); bufbuild answers false on a list. The harness rewrites
//    every has(x.f) into __cel_go_has(x, "f") (in optOptimize).
function celGoHas(x, f) {
  if (isCelMap(x)) return x.has(f);
  if (isCelList(x)) throw new Error("unsupported index type 'string' in list");
  return false;
}
function celGoMap(kvs) {
  const items = [...kvs], keys = [], vals = [];
  const same = (a, b) => (isCelUint(a) && isCelUint(b) ? a.value === b.value : a === b);
  for (let i = 0; i + 1 < items.length; i += 2) {
    const k = items[i];
    if (!(typeof k === "bigint" || typeof k === "string" || typeof k === "boolean" || isCelUint(k)))
      throw new Error("unsupported key type");
    const j = keys.findIndex((x) => same(x, k));
    if (j >= 0) vals[j] = items[i + 1];
    else { keys.push(k); vals.push(items[i + 1]); }
  }
  return celMap(new Map(keys.map((k, i) => [k, vals[i]])));
}

ruleFuncs.push(celFunc("__cel_go_set_in", [CelScalar.DYN, listType(CelScalar.DYN)], BOOL,
  (x, l) => [...l].some((el) => setKeyMatch(el, x))));
ruleFuncs.push(celFunc("_==_", [CelScalar.DYN, CelScalar.DYN], BOOL, (a, b) => celGoEquals(a, b)));
ruleFuncs.push(celFunc("_!=_", [CelScalar.DYN, CelScalar.DYN], BOOL, (a, b) => !celGoEquals(a, b)));
ruleFuncs.push(celFunc("@in", [CelScalar.DYN, listType(CelScalar.DYN)], BOOL,
  (x, l) => [...l].some((el) => celGoEquals(x, el))));
ruleFuncs.push(celFunc("__cel_go_map", [listType(CelScalar.DYN)], mapType(CelScalar.DYN, CelScalar.DYN), celGoMap));
ruleFuncs.push(celFunc("__cel_go_has", [CelScalar.DYN, STRING], BOOL, celGoHas));
const env = celEnv({ funcs: ruleFuncs });

// ---- devices -----------------------------------------------------------------------------------
const DRIVER = "dra.example.com";
function genDevice() {
  const attrs = {}, js = new Map();
  const INTS = [0n, 1n, -1n, 7n, 42n, 1000000n, -3n, 9223372036854775807n, -9223372036854775808n];
  const STRS = ["", "a", "gpu", "A100", "x_y", "é", "日本", "😀", "+1", "1e6", " 2", "0x10", "NaN"];
  for (let i = 0; i < 3; i++) {
    const v = pick(INTS);
    attrs[`i${i}`] = { int: `__INT__${v}` }; // written as a JSON integer (int64, exact)
    js.set(`i${i}`, v);
  }
  for (let i = 0; i < 2; i++) {
    const v = pick(STRS);
    attrs[`s${i}`] = { string: v };
    js.set(`s${i}`, v);
  }
  const b = chance(0.5);
  attrs.b0 = { bool: b };
  js.set("b0", b);
  // list-valued attributes (DRA list attributes): ints and strings
  const li = [];
  for (let i = ri(4); i > 0; i--) li.push(pick(INTS));
  attrs.li = { ints: li.map((v) => `__INT__${v}`) };
  js.set("li", li);
  const ls = [];
  for (let i = ri(4); i > 0; i--) ls.push(pick(STRS));
  attrs.ls = { strings: ls };
  js.set("ls", ls);
  const amu = chance(0.5);
  const dev = { driver: DRIVER, allowMultipleAllocations: amu, attributes: attrs };
  const jsdev = new Map([["driver", DRIVER], ["allowMultipleAllocations", amu],
                         ["attributes", new Map([[DRIVER, js]])], ["capacity", new Map()]]);
  return { dev, jsdev };
}

// ---- expression generator ----------------------------------------------------------------------
// Types: "int" "uint" "double" "string" "bool" "bytes" {l: T} {m: [K, V]}.
// exact: the expression's static type must be exactly T (no dyn parts), as homogeneous aggregate
// literals require of every element.
const SCALARS = ["int", "uint", "double", "string", "bool", "bytes"];
const KEYS = ["int", "uint", "string", "bool"];
const tstr = (t) => (typeof t === "string" ? t : t.l ? `list(${tstr(t.l)})` : `map(${tstr(t.m[0])}, ${tstr(t.m[1])})`);
const isNum = (t) => t === "int" || t === "uint" || t === "double";

function randType(d) {
  if (d <= 0 || chance(0.7)) return pick(SCALARS);
  if (chance(0.6)) return { l: randType(d - 1) };
  return { m: [pick(KEYS), randType(d - 1)] };
}

function strLit(s) {
  let o = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0);
    if (ch === '"' || ch === "\\") o += "\\" + ch;
    else if (c < 0x20 || c === 0x7f) o += "\\x" + c.toString(16).padStart(2, "0");
    else if (c > 0xffff) o += "\\U" + c.toString(16).padStart(8, "0");
    else if (c > 0x7e) o += "\\u" + c.toString(16).padStart(4, "0");
    else o += ch;
  }
  return o + '"';
}
const NUMSTRS = ["0", "1", "+1", "-1", " 1", "1 ", "1_000", "1__0", "_1", "1_", "0x10", "0x1p3",
  "0x_1p0", "0X1.8P1", "0x1", "1e3", "1E+3", ".5", "5.", "-0", "+0.0", "1e400", "-1e400", "1e-400",
  "nan", "NaN", "-nan", "inf", "-Inf", "+infinity", "Infinity", "nan(1)", "", "1\u0000", "1\u00002",
  "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
  "18446744073709551615", "18446744073709551616", "007", "1.5", "2.5e-3", "0b1", "0o7", "1e", "e1",
  "١", "1.7976931348623157e308", "1.7976931348623159e308", "4.9e-324", "2e-324"];
const STRS = ["", "a", "b", "ab", "abc", "gpu", "A", "Z", "é", "日本", "😀", "\uffff", "\ue000", "x y",
  "a.b", "true", "false", "1", "t", "F", "TRUE", "tRUE", "0"];
const DBLS = ["0.0", "-0.0", "1.0", "-1.5", "0.1", "2.5", "1e6", "1e21", "1e-7", "123456.0", "1234567.0",
  "1e300", "-1e300", "1e-300", "3.14159", "100000.0", "0.0001", "0.00001", "9007199254740993.0",
  "9223372036854775807.0", "-9223372036854775808.0", "18446744073709551615.0", "5e-324", "1.7976931348623157e308"];
const INTLITS = ["0", "1", "2", "3", "-1", "-7", "10", "42", "100", "255", "65536", "1000000",
  "9223372036854775807", "-9223372036854775807", "4611686018427387904", "3037000500"];
const UINTLITS = ["0u", "1u", "2u", "7u", "10u", "255u", "4294967296u", "9223372036854775808u",
  "18446744073709551615u", "9223372036854775807u"];

const BYTELITS = ['b""', 'b"a"', 'b"abc"', "b'\\xff'", "b'\\x00a'", "b'\\303\\251'",
  'b"\\xc3"', "b'A'"];
// (no \u escapes: cel-go rejects them in bytes literals)
// regular expressions that RE2 (cel-go) accepts; drabench approximates RE2 with PCRE2
const REGEXES = ["a", "^a", "a$", "^$", "a.*b", "^[a-z]+$", "\\d+", "^\\d+$", "(?i)gpu", "[^a]",
  "a|b", "^.$", "^.{2}$", "\\w+", "\\s", "é", "^(ab)+$", "[0-9a-f]{2}", "\\.", "x*", "\\bA",
  "^\\p{L}+$", "[[:alpha:]]", "(?s).", "^\\+?1$", "\\x{e9}"];

class Gen {
  constructor() { this.vars = []; this.nv = 0; }
  attr(t) {
    // a device attribute read (static type dyn); a missing id is a runtime error
    const miss = chance(0.03);
    const d = `device.attributes[${strLit(DRIVER)}]`;
    const id = miss ? "zz" : t === "int" ? `i${ri(3)}` : t === "string" ? `s${ri(2)}`
      : t === "bool" ? "b0" : t.l === "int" ? "li" : "ls";
    return chance(0.5) ? `${d}.${id}` : `${d}[${strLit(id)}]`;
  }
  leaf(t, exact) {
    const vs = this.vars.filter((v) => tstr(v.t) === tstr(t));
    if (vs.length && chance(0.4)) return pick(vs).name;
    if (!exact && (t === "int" || t === "string" || t === "bool" || (t.l === "int" || t.l === "string")) &&
        chance(0.3))
      return this.attr(t);
    switch (t) {
      case "int": return pick(INTLITS);
      case "uint": return pick(UINTLITS);
      case "double": return pick(DBLS);
      case "string":
        if (chance(0.1)) return "device.driver";
        return strLit(chance(0.4) ? pick(NUMSTRS) : pick(STRS));
      case "bool":
        if (chance(0.1)) return "device.allowMultipleAllocations";
        return pick(["true", "false"]);
      case "bytes": return pick(BYTELITS);
    }
    if (t.l) return chance(0.5) ? "[]" : `[${this.gen(t.l, 0, true)}]`;
    return chance(0.5) ? "{}" : `{${this.gen(t.m[0], 0, true)}: ${this.gen(t.m[1], 0, true)}}`;
  }
  macroVar(t) {
    const name = `v${this.nv++}`;
    this.vars.push({ name, t });
    return name;
  }
  withVar(t, f) {
    const name = this.macroVar(t);
    try { return f(name); } finally { this.vars.pop(); }
  }
  gen(t, d, exact = false) {
    if (d <= 0 || chance(0.15)) return this.leaf(t, exact);
    const g = (tt, e = exact) => this.gen(tt, d - 1, e);
    const r = ri(100);
    // shapes valid for every type
    if (r < 6) return `(${g("bool")} ? ${g(t, true)} : ${g(t, true)})`;
    if (r < 10) {
      // R13: cel-go's index_list is (list(A), int): a uint index of a list-typed operand does
      // not type-check; through dyn it is a runtime index
      if (chance(0.04)) {
        this.expectCompile = true;
        return `${this.pinned({ l: t }, d - 1)}[${pick(["0u", "1u"])}]`;
      }
      if (!exact && chance(0.15)) return `dyn(${this.pinned({ l: t }, d - 1)})[${pick(["0u", "1u", "1.0"])}]`;
      return `${this.pinned({ l: t }, d - 1)}[${this.index()}]`;
    }
    if (r < 13 && typeof t === "string" && KEYS.includes(t)) {
      // `.f` on a map of any key type is a lookup of the string key "f" (no such key on an
      // int / uint / bool keyed map)
      const k = pick(KEYS);
      if (chance(k === "string" ? 0.3 : 0.15)) return `${this.pinned({ m: [k, t] }, d - 1)}.${pick(["a", "b", "gpu"])}`;
      return `${this.pinned({ m: [k, t] }, d - 1)}[${g(k, true)}]`;
    }
    if (r < 15 && !exact) return `dyn(${g(t)})`;
    this.exact = exact;
    switch (typeof t === "string" ? t : t.l ? "list" : "map") {
      case "int": return this.genInt(d, g);
      case "uint": return this.genUint(d, g);
      case "double": return this.genDouble(d, g);
      case "string": return this.genString(d, g);
      case "bool": return this.genBool(d, g);
      case "bytes": return this.genBytes(d, g);
      case "list": return this.genList(t, d, g, exact);
      case "map": return this.genMap(t, d, g, exact);
    }
    return this.leaf(t, exact);
  }
  // An expression whose static type is fully known (no free type variable from `[]`, `{}`,
  // filter() of those ...): the containers that are indexed or iterated over. cel-go binds a
  // free type variable to the first overload that matches, so `[][0] + 1.5` or
  // `[].exists(x, x < 1.0) ... x + 0.5` are not well-typed as the generator means them.
  pinned(t, d) {
    if (typeof t === "string") return this.gen(t, d, true);
    const dd = Math.max(d - 1, 0);
    if (t.l) {
      switch (d <= 0 ? 0 : ri(4)) {
        case 1: {
          const st = pick(SCALARS);
          return `${this.pinned({ l: st }, dd)}.map(${this.withVar(st, (v) => `${v}, ${this.pinned(t.l, dd)})`)}`;
        }
        case 2: return `(${this.pinned(t, dd)} + ${this.gen(t, dd, true)})`;
        default: {
          const xs = [];
          for (let i = 1 + ri(3); i > 0; i--) xs.push(this.pinned(t.l, dd));
          return `[${xs.join(", ")}]`;
        }
      }
    }
    const xs = [];
    for (let i = 1 + ri(3); i > 0; i--) xs.push(`${this.pinned(t.m[0], dd)}: ${this.pinned(t.m[1], dd)}`);
    return `{${xs.join(", ")}}`;
  }
  // -x / !x. cel-go's parser drops an even run of adjacent '-' or '!' (`--x` is x), so do both
  // sides; bufbuild also drops a negation of a negation through parentheses (`-(-(5))` is the
  // literal 5, a constant for R7), which cel-go does not: never emitted (R10).
  neg(op, x) {
    if (x.startsWith(op)) return `${op}${x}`;
    return chance(0.5) ? `${op}(${x})` : `${op}${x}`;
  }
  index() { return pick(["0", "1", "2", "-1", "3"]); }
  // A dyn-typed value: an attribute read or dyn() of a scalar.
  dynVal(d) {
    return chance(0.5) ? this.attr(pick(["int", "string", "bool", { l: "int" }]))
      : `dyn(${this.gen(pick(SCALARS), d)})`;
  }
  // A conversion's argument that may or may not be a constant to cel-go's planner (R7): a
  // literal, dyn() / a conversion of a literal, a list literal of literals (constants); an
  // index, a concatenation or a conditional of literals (not constants: evaluated at run time).
  constish(t) {
    const lit = this.leaf(t, true);
    switch (ri(6)) {
      case 0: return `dyn(${lit})`;
      case 1: return t === "string" ? `string(${lit})` : `dyn(dyn(${lit}))`;
      case 2: return `[${lit}][0]`;
      case 3: return t === "string" ? `(${lit} + ${this.leaf("string", true)})` : `(true ? ${lit} : ${lit})`;
      default: return lit;
    }
  }
  genInt(d, g) {
    switch (ri(9)) {
      case 0: case 1: return `(${g("int")} ${pick(["+", "-", "*", "/", "%"])} ${g("int")})`;
      case 2: return this.neg("-", g("int"));
      case 3: return chance(0.3) ? `int(${this.constish(pick(["uint", "double", "string"]))})`
        : `int(${g(pick(["uint", "double", "string", "int"]), false)})`;
      case 4: return `size(${g(pick(["string", { l: pick(SCALARS) }, { m: [pick(KEYS), "int"] }]), false)})`;
      case 5: return `${g({ l: pick(SCALARS) }, false)}.size()`;
      case 6: { const et = pick(SCALARS); return `size(${this.pinned({ l: et }, d - 1)}.filter(${this.withVar(et, (v) => `${v}, ${this.gen("bool", d - 1)})`)})`; }
      default: return this.leaf("int", this.exact);
    }
  }
  genUint(d, g) {
    switch (ri(5)) {
      case 0: case 1: return `(${g("uint")} ${pick(["+", "-", "*", "/", "%"])} ${g("uint")})`;
      case 2: return chance(0.3) ? `uint(${this.constish(pick(["int", "double", "string"]))})`
        : `uint(${g(pick(["int", "double", "string", "uint"]), false)})`;
      default: return this.leaf("uint", this.exact);
    }
  }
  genDouble(d, g) {
    switch (ri(5)) {
      case 0: case 1: return `(${g("double")} ${pick(["+", "-", "*", "/"])} ${g("double")})`;
      case 2: return this.neg("-", g("double"));
      case 3: return chance(0.3) ? `double(${this.constish(pick(["int", "uint", "string"]))})`
        : `double(${g(pick(["int", "uint", "string", "double"]), false)})`;
      default: return this.leaf("double", this.exact);
    }
  }
  genBytes(d, g) {
    switch (ri(4)) {
      case 0: return `(${g("bytes")} + ${g("bytes")})`;
      case 1: return `bytes(${g("string", false)})`;
      default: return this.leaf("bytes", this.exact);
    }
  }
  genString(d, g) {
    switch (ri(5)) {
      case 0: case 1: return `(${g("string")} + ${g("string")})`;
      case 2: return `string(${g(pick(["int", "uint", "double", "bool", "string", "bytes"]), false)})`;
      default: return this.leaf("string", this.exact);
    }
  }
  genBool(d, g0) {
    const ex = this.exact;
    const g = (tt, e = false) => g0(tt, e);
    switch (ri(16)) {
      case 0: { // ordering, same or cross numeric type
        const a = pick(["int", "uint", "double", "string", "bool"]);
        const b = isNum(a) ? pick(["int", "uint", "double"]) : a;
        return `(${g(a)} ${pick(["<", "<=", ">", ">="])} ${g(b)})`;
      }
      case 1: { // equality, same static type
        const a = randType(1);
        return `(${g(a, true)} ${pick(["==", "!="])} ${g(a, true)})`;
      }
      case 2: { // heterogeneous equality through dyn
        const a = pick(SCALARS), b = pick(SCALARS);
        return `(dyn(${g(a)}) ${pick(["==", "!="])} ${g(b)})`;
      }
      case 3: return `(${g("bool")} ${pick(["&&", "||"])} ${g("bool")})`;
      case 4: return this.neg("!", g0("bool", ex));
      case 5: { const et = pick(SCALARS); return `(${g(et, true)} in ${g({ l: et }, true)})`; }
      case 6: { const k = pick(KEYS); return `(${g(k, true)} in ${g({ m: [k, pick(SCALARS)] }, true)})`; }
      case 7: return `${g("string")}.${pick(["contains", "startsWith", "endsWith"])}(${g("string")})`;
      case 8: {
        const et = pick(SCALARS), m = pick(["all", "exists", "exists_one"]);
        return `${this.pinned({ l: et }, d - 1)}.${m}(${this.withVar(et, (v) => `${v}, ${this.gen("bool", d - 1)})`)}`;
      }
      case 9: {
        const k = pick(KEYS), m = pick(["all", "exists"]);
        return `${this.pinned({ m: [k, "int"] }, d - 1)}.${m}(${this.withVar(k, (v) => `${v}, ${this.gen("bool", d - 1)})`)}`;
      }
      case 10: return `has(device.attributes[${strLit(DRIVER)}].${pick(["i0", "s1", "b0", "zz"])})`;
      case 11: return `bool(${g("string")})`;
      case 12: return `${g("string")}.matches(${strLit(pick(REGEXES))})`;
      case 13: return `has(${this.pinned({ m: [pick(KEYS), pick(SCALARS)] }, d - 1)}.${pick(["a", "b", "gpu"])})`;
      case 14: // presence test on a value without keys: false; on a list: an error (R14)
        return `has(${chance(0.5) ? this.attr(pick(["int", "string", "bool", { l: "string" }]))
          : `dyn(${this.gen(pick([...SCALARS, { l: "int" }]), d - 1)})`}.${pick(["a", "gpu"])})`;
      default: return this.leaf("bool", this.exact);
    }
  }
  genList(t, d, g, exact) {
    switch (ri(6)) {
      case 0: case 1: {
        // an element `[][i]` has a free type, bound by its siblings (`[0, [][3]]`)
        if (!exact && chance(0.04)) return `[${this.dynVal(d - 1)}, ${this.dynVal(d - 1)}]`; // list(dyn)
        const n = ri(4), xs = [];
        for (let i = 0; i < n; i++) xs.push(n > 1 && chance(0.1) ? `[][${this.index()}]` : g(t.l, true));
        // (only beside an element of a known type: `[][i]` siblings would just take the type)
        const typed = xs.some((x) => !x.startsWith("[]["));
        if (typed && chance(0.08)) {
          // R13: `[][i] + <dyn>` takes the type of cel-go's first `_+_` overload that matches,
          // add_bytes; the literal is homogeneous only with bytes elements
          const odd = `([][${this.index()}] + ${this.dynVal(d - 1)})`;
          if (chance(0.5)) xs.push(odd);
          else xs.unshift(odd);
          if (t.l !== "bytes") this.expectCompile = true;
        } else if (typed && chance(0.05)) {
          // a dyn element beside typed ones: list(dyn), not homogeneous (R13)
          xs.splice(ri(xs.length + 1), 0, this.dynVal(d - 1));
          this.expectCompile = true;
        }
        return `[${xs.join(", ")}]`;
      }
      case 2: return `(${g(t, true)} + ${g(t, true)})`;
      case 3: {
        const st = pick(SCALARS);
        return `${this.pinned({ l: st }, d - 1)}.map(${this.withVar(st, (v) => `${v}, ${this.gen(t.l, d - 1, true)})`)}`;
      }
      case 4: return `${this.pinned(t, d - 1)}.filter(${this.withVar(t.l, (v) => `${v}, ${this.gen("bool", d - 1)})`)}`;
      default: return this.leaf(t, exact);
    }
  }
  genMap(t, d, g, exact) {
    if (ri(3) === 0) return this.leaf(t, exact);
    const n = ri(4), xs = [];
    for (let i = 0; i < n; i++) xs.push(`${g(t.m[0], true)}: ${g(t.m[1], true)}`);
    return `{${xs.join(", ")}}`;
  }
}

// ---- canonical values (the same form cel_diff.c prints) ----------------------------------------
function canon(v) {
  if (v === null) return ["null"];
  switch (typeof v) {
    case "boolean": return ["bool", v];
    case "bigint": return ["int", v.toString()];
    case "number": {
      if (Number.isNaN(v)) return ["double", "nan"];
      const dv = new DataView(new ArrayBuffer(8));
      dv.setFloat64(0, v);
      return ["double", dv.getBigUint64(0).toString(16).padStart(16, "0")];
    }
    case "string": return ["string", v];
  }
  if (isCelUint(v)) return ["uint", v.value.toString()];
  if (v instanceof Uint8Array) return ["bytes", Buffer.from(v).toString("hex")];
  if (isCelList(v)) return ["list", [...v].map(canon)];
  if (isCelMap(v)) return ["map", [...v.entries()].map(([k, x]) => [canon(k), canon(x)])];
  return ["other", String(v)];
}
// maps compare as sets of entries
function norm(c) {
  if (c[0] === "list") return ["list", c[1].map(norm)];
  if (c[0] === "map") {
    const es = c[1].map(([k, v]) => [norm(k), norm(v)]);
    es.sort((a, b) => (JSON.stringify(a[0]) < JSON.stringify(b[0]) ? -1 : 1));
    return ["map", es];
  }
  return c;
}

function runJs(expr, jsdev) {
  try {
    const parsed = parse(expr);
    try {
      optOptimize(parsed.expr);
    } catch (e) {
      if (e instanceof InstantiationError) return { instantiation: e.message };
      throw e;
    }
    const r = plan(env, parsed)({ device: jsdev });
    if (isCelError(r)) return { error: r.message };
    return { value: norm(canon(r)) };
  } catch (e) {
    return { error: `exception: ${e.message}` };
  }
}

// ---- main loop ---------------------------------------------------------------------------------
const gen = new Gen();
let done = 0, diffs = 0, skipped = {}, shown = 0, nerr = 0, ncomp = 0, ninst = 0, nchk = 0;
const started = Date.now();
while (done < opt.count) {
  const n = Math.min(opt.batch, opt.count - done);
  const { dev, jsdev } = genDevice();
  const exprs = [], expectCompile = [];
  for (let i = 0; i < n; i++) {
    gen.nv = 0;
    gen.expectCompile = false;
    exprs.push(gen.gen(randType(2), 2 + ri(3)));
    expectCompile.push(gen.expectCompile);
  }
  const devJson = JSON.stringify({ device: dev }).replace(/"__INT__(-?\d+)"/g, "$1");
  const input = [devJson, ...exprs.map((e) => JSON.stringify({ expr: e }))].join("\n") + "\n";
  const res = spawnSync(opt.exe, [], { input, maxBuffer: 1 << 30, encoding: "utf8" });
  if (res.error || res.status !== 0) {
    console.error(`cel_diff: ${opt.exe} failed (${res.error ? res.error.message : "exit " + res.status}): ${res.stderr}`);
    process.exit(4);
  }
  const lines = res.stdout.split("\n").filter((l) => l.length);
  if (lines.length !== n) {
    console.error(`cel_diff: ${opt.exe} answered ${lines.length} lines for ${n} expressions`);
    process.exit(4);
  }
  for (let i = 0; i < n; i++) {
    const c = JSON.parse(lines[i]);
    if (opt.plant === done + i + 1) {
      delete c.compile;
      delete c.runtime;
      c.value = ["string", "planted by --plant"];
    }
    const j = expectCompile[i] ? { check: "R13: cel-go's checker refuses it" } : runJs(exprs[i], jsdev);
    let cAns, jAns, same;
    if (j.check !== undefined) {
      // a type error (R13): drabench must refuse it at compile time, not as a folding failure
      same = c.compile !== undefined && !/program instantiation failed/.test(c.compile);
      if (same) nchk++;
      cAns = c.compile !== undefined ? `compile error: ${c.compile}`
        : c.runtime !== undefined ? `error: ${c.runtime}` : JSON.stringify(norm(c.value));
    } else if (c.compile !== undefined) {
      // a compile error agrees only with an R7 instantiation failure
      same = j.instantiation !== undefined && /program instantiation failed/.test(c.compile);
      if (!same) ncomp++;
      else ninst++;
      cAns = `compile error: ${c.compile}`;
    } else if (c.runtime !== undefined) {
      cAns = `error: ${c.runtime}`;
    } else {
      cAns = JSON.stringify(norm(c.value));
    }
    jAns = j.check !== undefined ? `compile error (${j.check})`
      : j.instantiation !== undefined ? `compile error: ${j.instantiation}`
      : j.error !== undefined ? `error: ${j.error}` : JSON.stringify(j.value);
    if (j.check !== undefined) {
      // decided above
    } else if (c.compile === undefined && j.instantiation !== undefined) {
      same = false;
    } else if (c.compile === undefined) {
      const cErr = c.runtime !== undefined, jErr = j.error !== undefined;
      same = cErr && jErr ? true : !cErr && !jErr ? cAns === jAns : false;
      if (cErr && jErr) nerr++;
    }
    if (!same && j.error !== undefined) {
      const rule = SKIP_RULES.find(([, re]) => re.test(j.error));
      if (rule) {
        skipped[rule[0]] = (skipped[rule[0]] || 0) + 1;
        continue;
      }
    }
    if (!same) {
      diffs++;
      if (shown < opt.show) {
        shown++;
        console.log(`DIFF ${exprs[i]}\n  device:   ${devJson}\n  drabench: ${cAns}\n  bufbuild: ${jAns}`);
      }
    } else if (opt.verbose) {
      console.log(`ok   ${exprs[i]} => ${cAns}`);
    }
  }
  done += n;
}
const secs = ((Date.now() - started) / 1000).toFixed(1);
const sk = Object.entries(skipped).map(([k, v]) => `${k} ${v}`).join(", ") || "none";
console.log(`cel_diff: seed ${opt.seed}: ${done} expressions, ${diffs} differences (${ncomp} drabench compile errors), ` +
  `${nerr} agreed runtime errors, ${ninst} agreed instantiation failures (R7), ${nchk} agreed type errors (R13), ` +
  `skipped by rule: ${sk}; ${secs} s`);
if (opt.expect >= 0) {
  if (diffs !== opt.expect) console.log(`cel_diff: expected ${opt.expect} differences, found ${diffs}`);
  process.exit(diffs === opt.expect ? 0 : 3);
}
process.exit(diffs ? 3 : 0);
