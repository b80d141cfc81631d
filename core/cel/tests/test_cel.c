/*
 * test_cel.c - unit tests for the CEL engine: parser (literals, precedence, positions, limits),
 * checker (DRA environment, compile errors), evaluator edge cases (CEL-DRA §9 checklist),
 * program cache, reference list and scratch-arena discipline.
 */
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "cel/cel_ast.h"
#include "check.h"

static dra_model_t model;
static const dra_device_t *dev;     /* dra.example.com device with every attribute kind */
static const dra_device_t *badver;  /* device with an unparsable version */

static void add_attr(dra_model_t *m, dra_device_t *d, const char *driver, const char *name,
                     dra_attr_kind_t k)
{
    dra_attr_t *a = &d->attrs[d->nattrs++];
    a->name = dra_model_str(m, name);
    a->qname = dra_model_qname(m, driver, name);
    a->kind = (uint8_t)k;
    a->count = 1;
}

static void setup(void)
{
    dra_model_init(&model);
    dra_slice_t *s = dra_model_add_slice(&model);
    s->driver = dra_model_str(&model, "dra.example.com");
    s->devices = dra_model_array(&model, 2, sizeof(dra_device_t));
    s->ndevices = 2;
    dra_device_t *d = &s->devices[0];
    d->name = "dev0";
    d->attrs = dra_model_array(&model, 8, sizeof(dra_attr_t));
    add_attr(&model, d, s->driver, "model", DRA_ATTR_STRING);
    d->attrs[0].v.s = "A100-SXM4";
    add_attr(&model, d, s->driver, "index", DRA_ATTR_INT);
    d->attrs[1].v.i = 3;
    add_attr(&model, d, s->driver, "rdma", DRA_ATTR_BOOL);
    d->attrs[2].v.b = true;
    add_attr(&model, d, s->driver, "driverVersion", DRA_ATTR_VERSION);
    d->attrs[3].v.s = "550.54.15";
    add_attr(&model, d, s->driver, "names", DRA_ATTR_STRINGS);
    static const char *names[] = {"a", "b"};
    d->attrs[4].v.strs = names;
    d->attrs[4].count = 2;
    add_attr(&model, d, s->driver, "ext.example.com/family", DRA_ATTR_STRING);
    d->attrs[5].v.s = "hopper";
    d->caps = dra_model_array(&model, 1, sizeof(dra_capacity_t));
    d->caps[0].name = "memory";
    d->caps[0].qname = dra_model_qname(&model, s->driver, "memory");
    CHECK_OK(dra_quantity_parse("40Gi", 4, &d->caps[0].value, NULL));
    d->ncaps = 1;
    dra_device_t *b = &s->devices[1];
    b->name = "dev1";
    b->attrs = dra_model_array(&model, 1, sizeof(dra_attr_t));
    add_attr(&model, b, s->driver, "v", DRA_ATTR_VERSION);
    b->attrs[0].v.s = "99999999999999999999.0.0";
    dra_model_slice_done(&model, s);
    dev = &s->devices[0];
    badver = &s->devices[1];
}

/* 'T' true, 'F' false, 'C' compile error, 'R' runtime error */
static char outcome(const char *expr, const dra_device_t *d, char *msg, size_t msglen)
{
    dra_arena_t a, scratch;
    dra_arena_init(&a, 0);
    dra_arena_init(&scratch, 0);
    dra_cel_prog_t *p = NULL;
    dra_diag_t diag;
    dra_diag_clear(&diag);
    char r;
    int rc = dra_cel_compile(expr, strlen(expr), &a, &p, &diag);
    if (rc != DRA_OK) {
        r = 'C';
    } else {
        bool match = false;
        dra_arena_mark_t m0 = dra_arena_mark(&scratch);
        rc = dra_cel_eval_device(p, &model, d, &scratch, &match, &diag);
        CHECK(dra_arena_mark(&scratch).used == m0.used);
        r = rc == DRA_OK ? (match ? 'T' : 'F') : 'R';
    }
    if (msg)
        snprintf(msg, msglen, "%s", r == 'T' || r == 'F' ? "" : diag.msg);
    dra_arena_fini(&scratch);
    dra_arena_fini(&a);
    return r;
}

typedef struct kase {
    const char *expr;
    char want;
    const char *msg; /* substring of the error message, or NULL */
} kase_t;

static void run_cases(const kase_t *k, size_t n, const dra_device_t *d)
{
    for (size_t i = 0; i < n; i++) {
        char msg[DRA_DIAG_MSG_MAX];
        char got = outcome(k[i].expr, d, msg, sizeof msg);
        CHECK_MSG(got == k[i].want, "%s: want %c got %c (%s)", k[i].expr, k[i].want, got, msg);
        if (k[i].msg && got == k[i].want)
            CHECK_MSG(strstr(msg, k[i].msg) != NULL, "%s: message '%s' lacks '%s'", k[i].expr, msg,
                      k[i].msg);
    }
}

static void test_literals_and_precedence(void)
{
    static const kase_t k[] = {
        {"1 + 2 * 3 == 7", 'T', NULL},
        {"(1 + 2) * 3 == 9", 'T', NULL},
        {"-9223372036854775808 < 0", 'T', NULL},
        {"9223372036854775808 > 0", 'C', "invalid int literal"},
        {"18446744073709551615u == 18446744073709551615u", 'T', NULL},
        {"0x10 == 16 && 0x10u == 16u", 'T', NULL},
        {"1.5e3 == 1500.0 && .5 == 0.5", 'T', NULL},
        {"'a\\tb' == \"a\\u0009b\" && r'a\\tb'.size() == 4", 'T', NULL},
        {"'''x\ny''' == \"x\\ny\"", 'T', NULL},
        {"b'\\xff'.size() == 1 && '\\xff'.size() == 1 && '\\377' == 'ÿ'", 'T', NULL},
        {"true ? false : true || true", 'F', NULL},
        {"!true == false", 'T', NULL},
        {"--1 == 1 && !!true", 'T', NULL},
        {"1 in [1, 2] && !(3 in [1, 2])", 'T', NULL},
        {"[1, 2, 3][1] == 2 && {'a': 1}['a'] == 1 && {'a': 1}.a == 1", 'T', NULL},
        {"[1, 2,] == [1, 2] && {'a': 1,} == {'a': 1}", 'T', NULL},
        {"'x' // comment\n == 'x'", 'T', NULL},
        {"{1: 'a'}.size() == 1 && size([]) == 0", 'T', NULL},
    };
    run_cases(k, DRA_ARRAY_LEN(k), dev);
}

static void test_parse_errors(void)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_cel_prog_t *p;
    dra_diag_t d;
    CHECK_EQ_I64(dra_cel_compile("1 + ", 4, &a, &p, &d), DRA_ECOMPILE);
    CHECK_EQ_I64(d.column, 5);
    CHECK(strstr(d.msg, "Syntax error") != NULL);
    CHECK_EQ_I64(dra_cel_compile("?!", 2, &a, &p, &d), DRA_ECOMPILE);
    CHECK_EQ_I64(d.column, 1);
    CHECK_EQ_I64(dra_cel_compile("a\n  .b)", 7, &a, &p, &d), DRA_ECOMPILE);
    CHECK_EQ_I64(d.line, 2);
    CHECK_EQ_I64(dra_cel_compile("'abc", 4, &a, &p, &d), DRA_ECOMPILE);
    CHECK_EQ_I64(dra_cel_compile("'\\q'", 4, &a, &p, &d), DRA_ECOMPILE);
    CHECK_EQ_I64(dra_cel_compile("if", 2, &a, &p, &d), DRA_ECOMPILE);
    CHECK(strstr(d.msg, "reserved") != NULL);
    CHECK_EQ_I64(dra_cel_compile("Foo{a: 1}", 9, &a, &p, &d), DRA_ECOMPILE);
    /* reserved words are fine as field names */
    CHECK_OK(dra_cel_compile("{'if': true}.if", 15, &a, &p, &d));
    /* depth limits: deep nesting and very long chains fail cleanly */
    size_t n = 6000;
    char *deep = malloc(2 * n + 2);
    memset(deep, '(', n);
    deep[n] = '1';
    memset(deep + n + 1, ')', n);
    deep[2 * n + 1] = 0;
    CHECK_EQ_I64(dra_cel_compile(deep, strlen(deep), &a, &p, &d), DRA_ELIMIT);
    char *chain = malloc(4 * n + 1);
    for (size_t i = 0; i < n; i++)
        memcpy(chain + 4 * i, i ? "+1  " : "1   ", 4);
    chain[4 * n] = 0;
    CHECK_EQ_I64(dra_cel_compile(chain, 3000, &a, &p, &d), DRA_ECOMPILE); /* 750 terms: too deep */
    CHECK(strstr(d.msg, "recursion") != NULL);
    char nest[1201];
    memset(nest, '(', 600);
    nest[600] = '1';
    memset(nest + 601, ')', 600);
    nest[1201 - 1] = ')';
    CHECK_EQ_I64(dra_cel_compile(nest, 1201, &a, &p, &d), DRA_ECOMPILE);
    CHECK(strstr(d.msg, "recursion") != NULL);
    free(chain);
    free(deep);
    dra_arena_fini(&a);
}

static void test_checker(void)
{
    static const kase_t k[] = {
        {"1", 'C', "must evaluate to bool or the unknown type, not int"},
        {"'x'", 'C', "not string"},
        {"device.attributes['dra.example.com'].names.map(n, n)", 'C', "not list"},
        {"noSuchVar", 'C', "undeclared reference to 'noSuchVar'"},
        {"isZero(1)", 'C', "undeclared reference to 'isZero'"},
        {"device.allowMultipleAllocations == false", 'T', NULL},
        {"device.noField == 1", 'C', "undefined field 'noField'"},
        {"device.capacity['dra.example.com'].memory == '1Gi'", 'C', "found no matching overload for '_==_'"},
        {"semver('1.0.0') > semver('0.1.0')", 'C', "found no matching overload for '_>_'"},
        {"device.capacity['dra.example.com'].memory.sign() == 1", 'C', "found no matching overload for 'sign'"},
        {"sign(device.capacity['dra.example.com'].memory) == 1", 'T', NULL},
        {"[1, 'a'].size() == 2", 'C', "expected type 'int' but found 'string'"},
        {"[device.attributes['dra.example.com'].index, 7].size() == 2", 'C', "expected type"},
        {"int('abc') == 1", 'C', "program instantiation failed"},
        {"'a'.matches('(')", 'C', "invalid regular expression"},
        {"isQuantity([1])", 'C', "found no matching overload for 'isQuantity'"},
        {"device.attributes['dra.example.com'].rdma", 'T', NULL}, /* dyn result compiles */
        {"device.attributes['dra.example.com'].index", 'R', "could not be converted to bool"},
    };
    run_cases(k, DRA_ARRAY_LEN(k), dev);
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_cel_prog_t *p;
    dra_diag_t d;
    char *big = malloc(DRA_CEL_MAX_LEN + 2);
    memset(big, ' ', DRA_CEL_MAX_LEN + 1);
    big[0] = 't';
    big[1] = 'r';
    big[2] = 'u';
    big[3] = 'e';
    CHECK_EQ_I64(dra_cel_compile(big, DRA_CEL_MAX_LEN + 1, &a, &p, &d), DRA_ELIMIT);
    CHECK_OK(dra_cel_compile(big, DRA_CEL_MAX_LEN, &a, &p, &d));
    free(big);
    dra_arena_fini(&a);
}

/* CEL-DRA §9 checklist */
static void test_dra_semantics(void)
{
    static const kase_t k[] = {
        /* 1. unknown domain = empty map; missing id = runtime error; has(); `in` uses real keys */
        {"device.attributes['dra.example.com'].model == 'A100-SXM4'", 'T', NULL},
        {"device.attributes['dra.example.com']['model'].startsWith('A100')", 'T', NULL},
        {"device.attributes['dra.example.com'].missing == 1", 'R', "no such key: missing"},
        {"device.attributes['no.such.domain'].model == 'x'", 'R', "no such key: model"},
        {"device.attributes['no.such.domain'].size() == 0", 'T', NULL},
        {"has(device.attributes['dra.example.com'].missing)", 'F', NULL},
        {"has(device.attributes['dra.example.com'].model)", 'T', NULL},
        {"'no.such.domain' in device.attributes", 'F', NULL},
        {"'dra.example.com' in device.attributes && 'ext.example.com' in device.attributes", 'T', NULL},
        {"device.attributes.size() == 2 && device.capacity.size() == 1", 'T', NULL},
        {"device.attributes['ext.example.com'].family == 'hopper'", 'T', NULL},
        {"device.attributes['dra.example.com'].?missing.orValue(7) == 7", 'T', NULL},
        {"device.attributes['dra.example.com'][?'index'].orValue(0) == 3", 'T', NULL},
        {"device.attributes.exists_one(d, d == 'ext.example.com')", 'T', NULL},
        /* 2. error absorption */
        {"device.attributes['x'].y || true", 'T', NULL},
        {"true || device.attributes['x'].y", 'T', NULL},
        {"device.attributes['x'].y && false", 'F', NULL},
        {"device.attributes['x'].y || false", 'R', "no such key"},
        {"device.attributes['x'].y ? true : true", 'R', NULL},
        {"device.driver == 'other' && device.attributes['other'].type == 'gpu'", 'F', NULL},
        /* 4. mixed-type equality */
        {"device.attributes['dra.example.com'].index == '3'", 'F', NULL},
        {"device.attributes['dra.example.com'].index < '3'", 'R', "no such overload"},
        {"device.attributes['dra.example.com'].driverVersion == '550.54.15'", 'R', "no such overload"},
        {"'550.54.15' == device.attributes['dra.example.com'].driverVersion", 'F', NULL},
        {"device.attributes['dra.example.com'].driverVersion == semver('550.54.15+build')", 'T', NULL},
        /* 5. numbers */
        {"9223372036854775807 + 1 > 0", 'R', "overflow"},
        {"-9223372036854775808 - 1 < 0", 'R', "overflow"},
        {"1 / 0 == 0", 'R', "division by zero"},
        {"1 % 0 == 0", 'R', "modulus by zero"},
        {"18446744073709551615u + 1u > 0u", 'R', "overflow"},
        {"0u - 1u > 0u", 'R', "overflow"},
        {"dyn(1) == 1.0 && dyn(1u) == 1 && 1 < 1.5", 'T', NULL},
        {"device.attributes['dra.example.com'].index < 3.5", 'T', NULL},
        /* 6./7. quantity and semver */
        {"device.capacity['dra.example.com'].memory.compareTo(quantity('40Gi')) == 0", 'T', NULL},
        {"device.capacity['dra.example.com'].memory.isGreaterThan(quantity('40G'))", 'T', NULL},
        {"quantity('1.5Gi') == quantity('1536Mi') && quantity('200M') == quantity('0.2G')", 'T', NULL},
        {"quantity('1Ki').add(1).compareTo(quantity('1025')) == 0", 'T', NULL},
        {"quantity('1').sub(quantity('2')).asInteger() == -1", 'T', NULL},
        {"quantity('1.0').isInteger()", 'F', NULL},
        {"quantity('1.5').asInteger() == 1", 'R', "cannot convert value to integer"},
        {"quantity('bad') == quantity('1')", 'R', NULL},
        {"!isQuantity('1 ') && isQuantity('1E')", 'T', NULL},
        {"device.attributes['dra.example.com'].driverVersion.isGreaterThan(semver('550.9.0'))", 'T', NULL},
        {"semver('1.0.0-rc.1').isLessThan(semver('1.0.0')) && semver('1.10.0').compareTo(semver('1.9.0')) == 1", 'T', NULL},
        {"semver('v1.2', true).major() == 1 && !isSemver('v1.0.0') && isSemver('v1.0.0', true)", 'T', NULL},
        {"semver('01.0.0') == semver('1.0.0')", 'R', NULL},
        /* 9. macros over scalars, includes */
        {"device.attributes['dra.example.com'].model.exists(c, c == 'A')", 'R', "expected iterable type"},
        {"device.attributes['dra.example.com'].names.exists(n, n == 'b')", 'T', NULL},
        {"device.attributes['dra.example.com'].names.includes('a')", 'T', NULL},
        {"device.attributes['dra.example.com'].model.includes('A100-SXM4')", 'T', NULL},
        {"lists.range(49).includes(1)", 'R', "48"},
        {"'b' in device.attributes['dra.example.com'].names", 'T', NULL},
        /* 11. regex, strings */
        {"device.attributes['dra.example.com'].model.lowerAscii().matches('^a100.*$')", 'T', NULL},
        {"'abc'.matches('(?=a)')", 'C', "invalid regular expression"},
        {"'x1y22'.findAll('[0-9]+') == ['1', '22'] && 'abc'.find('b.') == 'bc'", 'T', NULL},
        {"'eth12'.substring(3, 5) == '12' && int('eth12'.substring(3, 4)) < 4", 'T', NULL},
        {"'a,b,c'.split(',').join('-') == 'a-b-c' && 'héllo'.charAt(1) == 'é'", 'T', NULL},
        {"'hello'.indexOf('l') == 2 && 'hello'.lastIndexOf('l') == 3 && ' x '.trim() == 'x'", 'T', NULL},
        {"'%s-%s'.format(['a', 'b']) == 'a-b' && '%d'.format([1]) == '1' && strings.quote('a\"b') == '\"a\\\\\"b\"'", 'T', NULL},
        {"cel.bind(d, device.attributes['dra.example.com'], d.rdma && d.index == 3)", 'T', NULL},
        {"[3, 1, 2].sort() == [1, 2, 3] && [1, 2, 3].sum() == 6 && [2, 1].min() == 1", 'T', NULL},
        {"sets.contains([1, 2, 3], [1, 3]) && sets.intersects([1], [1, 4])", 'T', NULL},
        {"{'a': 1, 'b': 2}.transformMap(k, v, v * 2) == {'a': 2, 'b': 4}", 'T', NULL},
        {"[1, 2].all(i, v, i < v)", 'T', NULL},
        {"optional.none().orValue(1) == 1 && optional.of(2).value() == 2", 'T', NULL},
        {"type(1) == int && type('a') == string", 'T', NULL},
        /* a repeated map-literal key keeps the last value (cel-go); 1 and 1u are two keys */
        {"{'a': 1, 'a': 2}.size() == 1 && {'a': 1, 'a': 2}.a == 2", 'T', NULL},
        {"{dyn(1u): 'x', dyn(1): 'y', dyn(1u): 'z'}.size() == 2 && {1u: 'x', 1u: 'z'}[1u] == 'z'", 'T', NULL},
        {"{true: 1, false: 2, true: 3}[true] == 3", 'T', NULL},
        /* ordering a NaN is an error (cel-go Compare), equality is false */
        {"double('NaN') < 1.0", 'R', "NaN values cannot be ordered"},
        {"1 >= double('NaN')", 'R', "NaN values cannot be ordered"},
        {"2u <= double('NaN')", 'R', "NaN values cannot be ordered"},
        {"double('NaN') == double('NaN')", 'F', NULL},
        /* braces of \p{..} and \x{..} are not a counted repetition: \p{L}+ is not possessive */
        {"'日本'.matches('^\\\\p{L}+$') && 'é'.matches('^\\\\x{e9}+$') && !'1'.matches('\\\\P{N}+')", 'T', NULL},
        {"'aa'.matches('a{2}+')", 'C', "possessive"},
        /* `[]`, `{}` and map()/filter() results have type variables, as in cel-go */
        {"[[], [1]] != [[1]] && [[], [1]][1] == [1]", 'T', NULL},
        {"[0, [][3]] == [0]", 'R', "index out of bounds"},
        {"[[1].map(x, x), [2]].size() == 2 && [[1].filter(x, x > 0), [2]].size() == 2", 'T', NULL},
        {"[{}, {1: 2}].size() == 2 && [[] + [1], [2]].size() == 2 && ([] + [1])[0] == 1", 'T', NULL},
        {"[1, 2].map(x, [x]) + [[]] == [[1], [2], []] && (true ? [] : [1]).size() == 0", 'T', NULL},
        {"[['a'].map(x, x), [1]].size() == 2", 'C', "expected type 'list(string)' but found 'list(int)'"},
        {"[1] + ['a'] == []", 'C', "found no matching overload for '_+_'"},
        {"[dyn(1), 7].size() == 2", 'C', "expected type 'dyn' but found 'int'"},
        /* only conversions of constants fail at compile time (cel-go OptOptimize) */
        {"true || uint(-(5)) == 1u", 'T', NULL},
        {"uint(-(5)) == 1u", 'R', "range error"},
        {"uint(-5) == 1u", 'C', "program instantiation failed"},
        {"int(dyn('x')) == 1", 'C', "program instantiation failed"},
        {"int(int('x')) == 1", 'C', "program instantiation failed"},
        {"int('' + 'x') == 1 || true", 'T', NULL},
        {"int(---1e300) == 1", 'R', "range error"},
        /* an even run of '-' or '!' is dropped by cel-go's parser: --1e300 is a literal */
        {"int(--1e300) == 1", 'C', "program instantiation failed"},
        {"!!1 == 1 && --2 == 2 && ---3 == -3 && -(5) == -5", 'T', NULL},
        {"--9223372036854775808 > 0", 'C', "invalid int literal"},
        /* a free type variable is bound by the first overload that matches, as in cel-go */
        {"[--(1.5), -[][3]].size() == 2", 'R', "index out of bounds"},
        {"[--(1), -[][3]].size() == 2", 'C', "expected type 'int' but found 'double'"},
        {"[[][0] < 1, true].size() == 2 && [[].filter(x, x < 1.0), [1]].size() == 2", 'R', "index"},
        {"[[].filter(x, x < 1.0), [1.0]].size() == 2", 'C', "expected type 'list(int)'"},
        {"[[][1][-1], device.driver].size() == 2", 'R', "index out of bounds"},
        {"[[][1u][-1], device.driver].size() == 2", 'C', "applied to '(list(dyn), uint)'"},
        /* `x in <constant list>`: cel-go's set lookup */
        {"(1 / 0) in []", 'F', NULL},
        {"!(device.attributes['dra.example.com'].nosuch in [])", 'T', NULL},
        {"(1 / 0) in [1, 2]", 'R', "division by zero"},
        {"dyn(9007199254740993) in [9007199254740992.0]", 'F', NULL},
        {"dyn(9007199254740993) == 9007199254740992.0", 'T', NULL},
        {"dyn(9007199254740993) in [9007199254740992.0, 2.0 * 1.0]", 'T', NULL},
        {"dyn(9007199254740992.0) in [9007199254740993]", 'T', NULL},
        {"dyn(1u) in [1.0] && dyn(1) in [1u] && dyn(1.0) in [1] && !(dyn(1.5) in [1])", 'T', NULL},
        {"dyn(-1) in [18446744073709551615u]", 'F', NULL},
        {"dyn(double('NaN')) in [double('NaN')]", 'F', NULL},
        {"'b' in ['a', 'b'] && !('c' in ['a', 'b']) && [1] in [[1]]", 'T', NULL},
        /* Kubernetes IP / CIDR / URL libraries */
        {"isIP('10.0.0.1') && !isIP('10.0.0.256') && !isIP('010.0.0.1') && !isIP('::ffff:1.2.3.4')", 'T', NULL},
        {"ip('fe80::1').isLinkLocalUnicast() && ip('8.8.8.8').isGlobalUnicast() && ip('::1').family() == 6", 'T', NULL},
        {"cidr('10.0.0.0/8').containsIP('10.1.2.3') && !cidr('10.0.0.0/8').containsIP(ip('11.0.0.1'))", 'T', NULL},
        {"cidr('10.1.2.3/8').masked() == cidr('10.0.0.0/8') && string(cidr('::1/128').ip()) == '::1'", 'T', NULL},
        {"ip('1.2.3') == ip('1.2.3.4')", 'R', "parse error"},
        {"url('https://a@e.com:8080/x?a=1&a=2').getQuery() == {'a': ['1', '2']} && url('/p').getHost() == ''", 'T', NULL},
        {"url('https://[::1]:80/').getHostname() == '::1' && url('https://e.com:8080/').getPort() == '8080'", 'T', NULL},
        {"!isURL('x') && isURL('/abs')", 'T', NULL},
        /* 13. cost budget */
        {"lists.range(10).all(a, lists.range(10).all(b, lists.range(10).all(c, lists.range(10)"
         ".all(d, lists.range(10).all(e, lists.range(10).all(f, lists.range(10).all(g, true)))))))",
         'R', "cost limit exceeded"},
    };
    run_cases(k, DRA_ARRAY_LEN(k), dev);
    /* 12. an unparsable version attribute fails every expression on that device */
    char msg[DRA_DIAG_MSG_MAX];
    CHECK_EQ_I64(outcome("true", badver, msg, sizeof msg), 'R');
    CHECK(strstr(msg, "parse semantic version") != NULL);
}

static void test_cache_and_refs(void)
{
    dra_cel_cache_t *c;
    CHECK_OK(dra_cel_cache_new(&c));
    const dra_cel_prog_t *p1, *p2;
    dra_diag_t d;
    const char *e = "device.attributes['dra.example.com'].model == 'x' && "
                    "device.capacity['dra.example.com'].memory.isInteger()";
    CHECK_OK(dra_cel_cache_get(c, e, &p1, &d));
    CHECK_OK(dra_cel_cache_get(c, e, &p2, &d));
    CHECK(p1 == p2);
    CHECK_EQ_I64(dra_cel_cache_get(c, "1 +", &p1, &d), DRA_ECOMPILE);
    dra_diag_clear(&d);
    CHECK_EQ_I64(dra_cel_cache_get(c, "1 +", &p1, &d), DRA_ECOMPILE);
    CHECK(strstr(d.msg, "Syntax error") != NULL);
    const dra_cel_ref_t *refs;
    uint32_t n;
    bool dyn;
    dra_cel_prog_refs(p2, &refs, &n, &dyn);
    CHECK_EQ_I64(n, 2);
    CHECK_STREQ(refs[0].qname, "dra.example.com/model");
    CHECK(!refs[0].is_capacity);
    CHECK_STREQ(refs[1].qname, "dra.example.com/memory");
    CHECK(refs[1].is_capacity);
    CHECK(!dyn);
    /* the AST exposes DEVREF nodes */
    const dra_cel_expr_t *root = dra_cel_prog_ast(p2);
    CHECK_EQ_I64(root->kind, DRA_CEL_E_CALL);
    const dra_cel_expr_t *eq = root->u.call.args[0];
    CHECK_EQ_I64(eq->u.call.args[0]->kind, DRA_CEL_E_DEVREF);
    CHECK_OK(dra_cel_cache_get(c, "device.attributes.exists(d, d == 'x')", &p1, &d));
    dra_cel_prog_refs(p1, &refs, &n, &dyn);
    CHECK(dyn);
    /* constant folding: quantity("40Gi") is a constant */
    CHECK_OK(dra_cel_cache_get(c, "device.capacity['d'].memory.compareTo(quantity('40Gi')) >= 0", &p1, &d));
    root = dra_cel_prog_ast(p1);
    const dra_cel_expr_t *cmp = root->u.call.args[0];
    CHECK_EQ_I64(cmp->u.call.args[0]->kind, DRA_CEL_E_CONST);
    CHECK_EQ_I64(cmp->u.call.args[0]->u.c.kind, DRA_CEL_QUANTITY);
    dra_cel_cache_free(c);
}

static uint64_t est_of(const char *expr)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_cel_prog_t *p;
    dra_diag_t d;
    uint64_t c = 0;
    CHECK_OK(dra_cel_compile(expr, strlen(expr), &a, &p, &d));
    if (p)
        CHECK_OK(dra_cel_estimate_cost(p, &c));
    dra_arena_fini(&a);
    return c;
}

/* the compile_test.go estimates quoted in CEL-DRA §4.1 */
static void test_cost_estimate(void)
{
    CHECK_EQ_U64(est_of("device.driver == 'x'"), 4);
    CHECK_EQ_U64(est_of("'x' in device.attributes"), 3);
    CHECK_EQ_U64(est_of("device.attributes['d'].a"), 4);
    CHECK_EQ_U64(est_of("device.attributes['d'].a == 1"), 5);
    CHECK_EQ_U64(est_of("device.capacity['d'].m.compareTo(quantity('1Gi')) >= 0"), 6);
    CHECK_EQ_U64(est_of("device.attributes.exists_one(d, d == 'x')"), 164);
    CHECK(est_of("device.attributes['d'].l.includes(1)") >= 48);
    uint64_t nested = est_of("[1,2,3,4,5,6,7,8,9,10].all(a, [1,2,3,4,5,6,7,8,9,10].all(b, "
                             "[1,2,3,4,5,6,7,8,9,10].all(c, [1,2,3,4,5,6,7,8,9,10].all(d, "
                             "[1,2,3,4,5,6,7,8,9,10].all(e, [1,2,3,4,5,6,7,8,9,10].all(f, "
                             "[1,2,3,4,5,6,7,8,9,10].all(g, true)))))))");
    CHECK(nested > DRA_CEL_MAX_COST);
}

static void test_eval_text(void)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_cel_prog_t *p;
    dra_diag_t d;
    CHECK_OK(dra_cel_compile("device.attributes['dra.example.com'].rdma", 41, &a, &p, &d));
    const char *text;
    CHECK_OK(dra_cel_eval_device_text(p, &model, dev, &a, &text, &d));
    CHECK_STREQ(text, "true");
    CHECK_OK(dra_cel_compile("device.attributes['dra.example.com'].names", 42, &a, &p, &d));
    CHECK_OK(dra_cel_eval_device_text(p, &model, dev, &a, &text, &d));
    CHECK_STREQ(text, "[\"a\", \"b\"]");
    dra_arena_fini(&a);
}

/* String <-> number conversions follow Go's strconv as cel-go uses it (differential check). */
static void test_go_conversions(void)
{
    static const kase_t k[] = {
        /* ParseInt(s, 10, 64): sign allowed, no whitespace, no underscores, NUL is a character */
        {"int('+1') == 1 && int('-0') == 0 && int('007') == 7", 'T', NULL},
        {"int(' 1') == 1", 'C', "invalid syntax"},
        {"int('1 ') == 1", 'C', "invalid syntax"},
        {"int('1_000') == 1000", 'C', "invalid syntax"},
        {"int('1\\x002') == 1", 'C', "invalid syntax"},
        {"int('0x10') == 16", 'C', "invalid syntax"},
        {"int('9223372036854775807') == 9223372036854775807", 'T', NULL},
        {"int('-9223372036854775808') < 0", 'T', NULL},
        {"int('9223372036854775808') > 0", 'C', "value out of range"},
        {"int('0000000000000000000000000000000000000000000000000000000000000000000000000000000000001') == 1",
         'T', NULL},
        /* ParseUint(s, 10, 64): no sign at all */
        {"uint('+1') == 1u", 'C', "invalid syntax"},
        {"uint('18446744073709551615') == 18446744073709551615u", 'T', NULL},
        {"uint('18446744073709551616') > 0u", 'C', "value out of range"},
        /* ParseFloat(s, 64): Go literal syntax, hex floats, underscores, inf/nan, range */
        {"double('0x1p3') == 8.0 && double('0X1.8P1') == 3.0 && double('0x_1p0') == 1.0", 'T', NULL},
        {"double('1_000') == 1000.0 && double('1_0.2_5e1_0') == 10.25e10", 'T', NULL},
        {"double('1__0') > 0.0", 'C', "invalid syntax"},
        {"double('_1') > 0.0", 'C', "invalid syntax"},
        {"double('0x10') > 0.0", 'C', "invalid syntax"},
        {"double(' 1') > 0.0", 'C', "invalid syntax"},
        {"double('nan(1)') > 0.0", 'C', "invalid syntax"},
        {"double('-nan') > 0.0", 'C', "invalid syntax"},
        {"double('1e400') > 0.0", 'C', "value out of range"},
        {"double('1e-400') == 0.0 && double('.5') == 0.5 && double('5.') == 5.0", 'T', NULL},
        {"double('-Inf') < 0.0 && double('+infinity') > 0.0 && double('INF') > 0.0", 'T', NULL},
        {"double('NaN') != double('nan')", 'T', NULL},
        {"double('infinit') > 0.0", 'C', "invalid syntax"},
        /* FormatFloat(d, 'g', -1, 64) */
        {"string(1e6) == '1e+06' && string(123456.0) == '123456' && string(1234567.0) == '1.234567e+06'",
         'T', NULL},
        {"string(0.0001) == '0.0001' && string(0.00001) == '1e-05' && string(-1.5) == '-1.5'", 'T',
         NULL},
        {"string(1e21) == '1e+21' && string(1.0/0.0) == '+Inf' && string(-0.0) == '-0'", 'T', NULL},
    };
    run_cases(k, DRA_ARRAY_LEN(k), dev);
}

/* Field selection, presence tests, list indexes, list-literal element types and constant
 * folding, each as cel-go v0.26 (configured as Kubernetes' DRA compiler) answers it. */
static void test_cel_go_rules(void)
{
    static const kase_t k[] = {
        /* `.f` on a map of any key type is a lookup of the string key "f" (checkSelectField) */
        {"has({'a': 1}.a) && {'a': 1}.a == 1", 'T', NULL},
        {"{'a': 1}.b == 1", 'R', "no such key: b"},
        {"{1: 2}.a == 1", 'R', "no such key: a"},
        {"!has({1: 2}.a) && !has({true: 1}.a) && !has({1u: 2}.a) && !has({}.a)", 'T', NULL},
        {"{1: 2}.?a.orValue(5) == 5 && {}.?a.orValue(5) == 5", 'T', NULL},
        {"[{}, {'a': 1}][1].a == 1 && !has([{}, {'a': 1}][0].a)", 'T', NULL},
        {"[{1: 2}].exists(m, has(m.a)) || cel.bind(m, {1: 2}, has(m.a))", 'F', NULL},
        {"optional.of({1: 2}).a == optional.none() && has(optional.of({'a': 1}).a)", 'T', NULL},
        {"{}.a == 1", 'R', "no such key: a"},
        {"[1].a == 1", 'C', "type 'list(int)' does not support field selection"},
        {"optional.of(1).a == optional.none()", 'C', "type 'int' does not support field selection"},
        {"has(optional.of([1]).a)", 'C', "type 'list(int)' does not support field selection"},
        /* a value without keys: `.f` / `[k]` is "no such key", has() / `.?f` / `[?k]` absent */
        {"!has(dyn(1).a) && !has(dyn('s').a) && !has(dyn(b'x').a) && !has(dyn(null).a)", 'T', NULL},
        {"dyn(1).a == 1", 'R', "no such key: a"},
        {"dyn(1)['a'] == 1", 'R', "no such key: a"},
        {"dyn(1).?a.orValue(2) == 2 && dyn(1)[?'a'].orValue(2) == 2", 'T', NULL},
        {"optional.of(dyn(1)).a == optional.none() && optional.of(dyn(1))['a'] == optional.none()",
         'T', NULL},
        {"has(device.attributes['dra.example.com'].index.x)", 'F', NULL},
        {"device.attributes['dra.example.com'].index.?x.orValue(0) == 0", 'T', NULL},
        /* ... but a list is not indexed by a string, not even in a presence test */
        {"has(dyn([1]).a)", 'R', "unsupported index type 'string' in list"},
        {"has(device.attributes['dra.example.com'].names.x)", 'R', "unsupported index type"},
        /* index_list is (list(A), int): a uint index of a list-typed operand does not check */
        {"[1][0u] == 1", 'C', "found no matching overload for '_[_]' applied to '(list(int), uint)'"},
        {"[1][?0u].hasValue()", 'C', "found no matching overload for '_[?_]'"},
        {"dyn([1])[0u] == 1 && [1][dyn(0u)] == 1 && {0u: 1}[0u] == 1", 'T', NULL},
        {"device.attributes['dra.example.com'].names[1u] == 'b'", 'T', NULL},
        /* list literals: `[][4] + dyn` binds the free element type to the first `_+_` overload
         * (add_bytes), so the list is not homogeneous; with an int operand it is add_int64 */
        {"[2, ([][4] + device.attributes['dra.example.com'].index)] == [0]", 'C',
         "expected type 'int' but found 'bytes'"},
        {"[2, ([][4] + 3)] == [0]", 'R', "index out of bounds"},
        {"[[], device.attributes['dra.example.com'].names].size() == 2", 'C',
         "expected type 'list(dyn)' but found 'dyn'"},
        /* folding: only conversions of constants; a concatenation is not a constant */
        {"double('hello' + 'gpu') == 1.0 || true", 'T', NULL},
        {"double('ab' + '\\x00') == 1.0", 'R', "invalid syntax"},
        {"int(['a'][0]) == 1", 'R', "invalid syntax"},
        {"[1].exists(x, x == 1) && double('a') == 1.0", 'C', "program instantiation failed"},
        {"type(double('x')) == double && [double('y')] == []", 'C', "parsing \"x\""},
        /* a folding error wins over a runtime error, a type error over a folding error */
        {"1 / 0 == 1 && double('a') == 1.0", 'C', "program instantiation failed"},
        {"[double('a'), [1][0u]].size() == 2", 'C', "found no matching overload for '_[_]'"},
        {"int('x') == 1 && 1 == 'a'", 'C', "found no matching overload for '_==_'"},
        {"int('x')", 'C', "must evaluate to bool"},
    };
    run_cases(k, DRA_ARRAY_LEN(k), dev);
}

/* Derived attributes (1.37): the result rule at compile time, the value as an attribute. */
static char derived(const char *expr, dra_arena_t *a, dra_attr_t *out, char *msg, size_t len)
{
    dra_cel_prog_t *p = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    int rc = dra_cel_compile_derived(expr, strlen(expr), a, &p, &d);
    char r = 'C';
    if (rc == DRA_OK) {
        rc = dra_cel_eval_derived(p, &model, dev, a, out, &d);
        r = rc == DRA_OK ? 'V' : 'R';
    }
    snprintf(msg, len, "%s", rc == DRA_OK ? "" : d.msg);
    return r;
}

static void test_derived(void)
{
    dra_arena_t a;
    dra_arena_init(&a, 0);
    dra_attr_t v;
    char msg[DRA_DIAG_MSG_MAX];
    CHECK(derived("device.attributes['dra.example.com'].index / 2", &a, &v, msg, sizeof msg) == 'V');
    CHECK(v.kind == DRA_ATTR_INT && v.count == 1 && v.v.i == 1);
    CHECK(derived("device.attributes['dra.example.com'].model", &a, &v, msg, sizeof msg) == 'V');
    CHECK(v.kind == DRA_ATTR_STRING);
    CHECK_STREQ(v.v.s, "A100-SXM4");
    CHECK(derived("device.attributes['dra.example.com'].rdma", &a, &v, msg, sizeof msg) == 'V');
    CHECK(v.kind == DRA_ATTR_BOOL && v.v.b);
    /* a semver becomes its version text */
    CHECK(derived("device.attributes['dra.example.com'].driverVersion", &a, &v, msg, sizeof msg) ==
          'V');
    CHECK(v.kind == DRA_ATTR_VERSION);
    CHECK_STREQ(v.v.s, "550.54.15");
    CHECK(derived("semver('1.2.3-rc.1+b5')", &a, &v, msg, sizeof msg) == 'V');
    CHECK_STREQ(v.v.s, "1.2.3-rc.1+b5");
    /* lists of one scalar type */
    CHECK(derived("device.attributes['dra.example.com'].names", &a, &v, msg, sizeof msg) == 'V');
    CHECK(v.kind == DRA_ATTR_STRINGS && v.count == 2);
    CHECK_STREQ(v.v.strs[1], "b");
    CHECK(derived("[3, 1]", &a, &v, msg, sizeof msg) == 'V');
    CHECK(v.kind == DRA_ATTR_INTS && v.count == 2 && v.v.ints[0] == 3);
    CHECK(derived("[]", &a, &v, msg, sizeof msg) == 'V');
    CHECK(dra_attr_kind_is_list((dra_attr_kind_t)v.kind) && v.count == 0);
    /* no attribute value: compile errors; a missing attribute: a runtime error */
    CHECK(derived("1.5", &a, &v, msg, sizeof msg) == 'C');
    CHECK(strstr(msg, "not double") != NULL);
    CHECK(derived("{'a': 1}", &a, &v, msg, sizeof msg) == 'C');
    CHECK(derived("device.capacity['dra.example.com'].memory", &a, &v, msg, sizeof msg) == 'C');
    CHECK(derived("device.attributes['dra.example.com'].missing", &a, &v, msg, sizeof msg) == 'R');
    /* the program cache keeps a selector and a derived attribute of the same text apart */
    dra_cel_cache_t *c;
    CHECK_OK(dra_cel_cache_new(&c));
    const dra_cel_prog_t *p1 = NULL, *p2 = NULL;
    dra_diag_t d;
    dra_diag_clear(&d);
    CHECK_OK(dra_cel_cache_get(c, "device.attributes['dra.example.com'].rdma", &p1, &d));
    CHECK_OK(dra_cel_cache_get_derived(c, "device.attributes['dra.example.com'].rdma", &p2, &d));
    CHECK(p1 != p2);
    CHECK_EQ_I64(dra_cel_cache_get(c, "1", &p1, &d), DRA_ECOMPILE); /* a selector must be bool */
    CHECK_OK(dra_cel_cache_get_derived(c, "1", &p2, &d));
    dra_cel_cache_free(c);
    dra_arena_fini(&a);
}

int main(void)
{
    setup();
    RUN(test_literals_and_precedence);
    RUN(test_parse_errors);
    RUN(test_checker);
    RUN(test_dra_semantics);
    RUN(test_cache_and_refs);
    RUN(test_cost_estimate);
    RUN(test_eval_text);
    RUN(test_go_conversions);
    RUN(test_cel_go_rules);
    RUN(test_derived);
    dra_model_fini(&model);
    return check_summary();
}
