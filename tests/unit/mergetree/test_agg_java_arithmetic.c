/* The aggregation merge engine's per-field arithmetic must be Java Paimon 1.4.1's
 * (org.apache.paimon.mergetree.compact.aggregate.Field*Agg): golden cases run directly
 * against pm_mt_field_agg, one aggregate step at a time.
 *
 * Cases cite where their expectation comes from: a Java test method of FieldAggregatorTest
 * or FieldAggregatorRetractNullTest (same inputs, same expected values), or, where Java's
 * tests have no case (overflow, decimal precision, IEEE corners, comparison order), the Java
 * class whose arithmetic gives the value: FieldSumAgg / FieldProductAgg compute in the
 * column's primitive width (byte, short, int, long wrap in two's complement), DecimalUtils.add
 * keeps a compact (precision <= 18) sum that fits a long without a precision check and
 * otherwise returns Decimal.fromBigDecimal's null past the precision, FieldMaxAgg /
 * FieldMinAgg order with InternalRowUtils.compare. */
#include "test_support.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/type.h"
#include "mergetree/mt_internal.h"
#include "util/util.h"

__extension__ typedef __int128 i128;

enum { AGG = 1, RET, RESET };

/* A value literal of the field's type; NULL is SQL null. DECIMAL literals are written in
 * plain notation ("999.99"), timestamps and dates as their stored integer. */
typedef const char *lit;
static const char PREV[] = "<previous result>"; /* the accumulator is the last step's result */

typedef struct step {
  int op;
  lit acc, in;
  lit want;        /* expected result (NULL: null) */
  const char *err; /* non-NULL: the step fails with a message containing this */
} step;

typedef struct gcase {
  const char *cite;          /* Java test method or class giving the expectation */
  const char *type;          /* Paimon type of field v */
  const char *fn;            /* fields.v.aggregate-function */
  const char *ok[2], *ov[2]; /* extra options */
  step steps[8];
} gcase;

#define A(acc, in, want) \
  { AGG, acc, in, want, NULL }
#define R(acc, in, want) \
  { RET, acc, in, want, NULL }
#define AE(acc, in, msg) \
  { AGG, acc, in, NULL, msg }
#define RE(acc, in, msg) \
  { RET, acc, in, NULL, msg }
#define RST \
  { RESET, NULL, NULL, NULL, NULL }
#define NOOPT \
  {NULL, NULL}, { NULL, NULL }
#define NORETRACT "does not support retraction"

static const gcase CASES[] = {
    /* ---- FieldAggregatorTest: the Java test methods, case by case ---- */
    {"FieldAggregatorTest.testFieldBoolAndAgg",
     "BOOLEAN",
     "bool_and",
     NOOPT,
     {A("false", "true", "false"), A("true", "true", "true")}},
    {"FieldAggregatorTest.testFieldBoolOrAgg",
     "BOOLEAN",
     "bool_or",
     NOOPT,
     {A("false", "true", "true"), A("false", "false", "false")}},
    {"FieldAggregatorTest.testFieldLastNonNullValueAgg",
     "INT",
     "last_non_null_value",
     NOOPT,
     {A(NULL, "1", "1"), A("1", NULL, "1")}},
    {"FieldAggregatorTest.testFieldLastValueAgg",
     "INT",
     "last_value",
     NOOPT,
     {A(NULL, "1", "1"), A("1", NULL, NULL)}},
    {"FieldAggregatorTest.testFieldFirstValueAgg",
     "INT",
     "first_value",
     NOOPT,
     {A(NULL, "1", "1"), A("1", "2", "1"), RST, A("1", "3", "3")}},
    {"FieldAggregatorTest.testFieldFirstNonNullValueAgg",
     "INT",
     "first_non_null_value",
     NOOPT,
     {A(NULL, NULL, NULL), A(NULL, "1", "1"), A("1", "2", "1"), RST, A("1", "3", "3")}},
    {"FieldAggregatorTest.testFieldListAggWithDefaultDelimiter",
     "STRING",
     "listagg",
     NOOPT,
     {A("user1", "user2", "user1,user2")}},
    {"FieldAggregatorTest.testFieldListAggWithDefaultDelimiterAndDistinct",
     "STRING",
     "listagg",
     {"fields.v.distinct", NULL},
     {"true", NULL},
     {A("user1", "user2", "user1,user2"), A(PREV, "user1", "user1,user2"),
      A(PREV, "user3", "user1,user2,user3")}},
    {"FieldAggregatorTest.testFieldListAggWithCustomDelimiterAndEmptyStrings",
     "STRING",
     "listagg",
     {"fields.v.distinct", "fields.v.list-agg-delimiter"},
     {"true", ";"},
     {A("", "", "")}},
    {"FieldAggregatorTest.testFieldListAggWithDefaultDelimiterAndDistinctWithMultiUser",
     "STRING",
     "listagg",
     {"fields.v.distinct", NULL},
     {"true", NULL},
     {A("user1", "user2", "user1,user2"), A(PREV, "user1,user3", "user1,user2,user3")}},
    {"FieldAggregatorTest.testFieldListAggWithDefaultDelimiterAndDistinctWithEmptyLeftUser",
     "STRING",
     "listagg",
     {"fields.v.distinct", NULL},
     {"true", NULL},
     {A("", "user2", "user2"), A(PREV, "user1,user3", "user2,user1,user3")}},
    {"FieldAggregatorTest.testFieldListAggWithCustomDelimiterAndDistinctWithMultiKvString",
     "STRING",
     "listagg",
     {"fields.v.distinct", "fields.v.list-agg-delimiter"},
     {"true", ";"},
     {A("k1=v1;k2=v2", "k1=v1;k3=v3", "k1=v1;k2=v2;k3=v3"), A(PREV, "", "k1=v1;k2=v2;k3=v3")}},
    {"FieldAggregatorTest.testFieldListAggWithCustomDelimiterDistinctMultiKvStringWithWhiteSpace",
     "STRING",
     "listagg",
     {"fields.v.distinct", "fields.v.list-agg-delimiter"},
     {"true", " "},
     {A("k1=v1 k2=v2", " k1=v1  k3=v3", "k1=v1 k2=v2 k3=v3"), A(PREV, " ", "k1=v1 k2=v2 k3=v3")}},
    {"FieldAggregatorTest.testFieldListAggWithCustomDelimiter",
     "STRING",
     "listagg",
     {"fields.v.list-agg-delimiter", NULL},
     {"-", NULL},
     {A("user1", "user2", "user1-user2")}},
    {"FieldAggregatorTest.testFieldListAggDistinctShouldNotMatchSubstring",
     "STRING",
     "listagg",
     {"fields.v.distinct", NULL},
     {"true", NULL},
     {A("abc,def,asd", "ab,xy", "abc,def,asd,ab,xy")}},
    {"FieldAggregatorTest.testFieldListAggDistinctSubstringWithCustomDelimiter",
     "STRING",
     "listagg",
     {"fields.v.distinct", "fields.v.list-agg-delimiter"},
     {"true", ";"},
     {A("abc;def;asd", "ab;xy;def", "abc;def;asd;ab;xy")}},
    /* FieldListaggAgg (1.4.1): only empty values are skipped, blank ones are joined (skipping
     * blank values came after 1.4.1 with apache/paimon#8480); a null side yields the other
     * even when that is empty */
    {"FieldListaggAgg: blank values are joined, empty ones skipped",
     "STRING",
     "listagg",
     NOOPT,
     {A("a", " ", "a, "), A(" ", "b", " ,b"), A("a", "", "a"), A("", "b", "b"), A(NULL, "", ""),
      A("", NULL, ""), A("\xe3\x80\x80", "b", "\xe3\x80\x80,b")}},
    {"FieldListaggAgg: distinct skips only empty tokens",
     "STRING",
     "listagg",
     {"fields.v.distinct", NULL},
     {"true", NULL},
     {A("a", "a,,b", "a,b"), A("a", " ,a", "a, "), A("a, ", " ", "a, ")}},
    {"FieldAggregatorTest.testFieldMaxAgg", "INT", "max", NOOPT, {A("1", "10", "10")}},
    {"FieldAggregatorTest.testFieldMinAgg", "INT", "min", NOOPT, {A("1", "10", "1")}},
    {"FieldAggregatorTest.testFieldSumIntAgg",
     "INT",
     "sum",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "11"), R("10", "5", "5"), R(NULL, "5", "-5")}},
    {"FieldAggregatorTest.testFieldProductIntAgg",
     "INT",
     "product",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "10"), R("10", "5", "2"), R(NULL, "5", NULL)}},
    {"FieldAggregatorTest.testFieldSumByteAgg",
     "TINYINT",
     "sum",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "11"), R("10", "5", "5"), R(NULL, "5", "-5")}},
    {"FieldAggregatorTest.testFieldProductByteAgg",
     "TINYINT",
     "product",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "10"), R("10", "5", "2"), R(NULL, "5", NULL)}},
    {"FieldAggregatorTest.testFieldProductShortAgg",
     "SMALLINT",
     "product",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "10"), R("10", "5", "2"), R(NULL, "5", NULL)}},
    {"FieldAggregatorTest.testFieldSumShortAgg",
     "SMALLINT",
     "sum",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "11"), R("10", "5", "5"), R(NULL, "5", "-5")}},
    {"FieldAggregatorTest.testFieldSumLongAgg",
     "BIGINT",
     "sum",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "11"), R("10", "5", "5"), R(NULL, "5", "-5")}},
    {"FieldAggregatorTest.testFieldProductLongAgg",
     "BIGINT",
     "product",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "10"), R("10", "5", "2"), R(NULL, "5", NULL)}},
    {"FieldAggregatorTest.testFieldProductFloatAgg",
     "FLOAT",
     "product",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "10"), R("10", "5", "2"), R(NULL, "5", NULL)}},
    {"FieldAggregatorTest.testFieldSumFloatAgg",
     "FLOAT",
     "sum",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "11"), R("10", "5", "5"), R(NULL, "5", "-5")}},
    {"FieldAggregatorTest.testFieldProductDoubleAgg",
     "DOUBLE",
     "product",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "10"), R("10", "5", "2"), R(NULL, "5", NULL)}},
    {"FieldAggregatorTest.testFieldSumDoubleAgg",
     "DOUBLE",
     "sum",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "11"), R("10", "5", "5"), R(NULL, "5", "-5")}},
    /* new DecimalType() is DECIMAL(10, 0) */
    {"FieldAggregatorTest.testFieldProductDecimalAgg",
     "DECIMAL(10, 0)",
     "product",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "10"), R("10", "5", "2"), R(NULL, "5", NULL)}},
    {"FieldAggregatorTest.testFieldSumDecimalAgg",
     "DECIMAL(10, 0)",
     "sum",
     NOOPT,
     {A(NULL, "10", "10"), A("1", "10", "11"), R("10", "5", "5"), R(NULL, "5", "-5")}},

    /* ---- FieldAggregatorRetractNullTest ---- */
    {"FieldAggregatorRetractNullTest.testFieldFirstValueAgg",
     "INT",
     "first_value",
     NOOPT,
     {RE("1", "1", "Aggregate function 'first_value' " NORETRACT)}},
    {"FieldAggregatorRetractNullTest.testFieldFirstNonNullValueAgg",
     "INT",
     "first_non_null_value",
     NOOPT,
     {RE("1", "1", "Aggregate function 'first_non_null_value' " NORETRACT)}},
    {"FieldAggregatorRetractNullTest.testFieldSumAgg", "INT", "sum", NOOPT, {R("1", "1", "0")}},
    {"FieldAggregatorRetractNullTest.testFieldMinAgg",
     "INT",
     "min",
     NOOPT,
     {RE("1", "1", "Aggregate function 'min' " NORETRACT)}},
    {"FieldAggregatorRetractNullTest.testFieldMaxAgg",
     "INT",
     "max",
     NOOPT,
     {RE("1", "1", "Aggregate function 'max' " NORETRACT)}},
    {"FieldAggregatorRetractNullTest.testFieldRoaringBitmap32Agg",
     "VARBINARY(20)",
     "rbm32",
     NOOPT,
     {RE("x", "x", "Aggregate function 'rbm32' " NORETRACT)}},
    {"FieldAggregatorRetractNullTest.testFieldRoaringBitmap64Agg",
     "VARBINARY(20)",
     "rbm64",
     NOOPT,
     {RE("x", "x", "Aggregate function 'rbm64' " NORETRACT)}},
    {"FieldAggregatorRetractNullTest.testFieldThetaSketchAgg",
     "VARBINARY(20)",
     "theta_sketch",
     NOOPT,
     {RE("x", "x", "Aggregate function 'theta_sketch' " NORETRACT)}},
    {"FieldAggregatorRetractNullTest.testFieldHllSketchAgg",
     "VARBINARY(20)",
     "hll_sketch",
     NOOPT,
     {RE("x", "x", "Aggregate function 'hll_sketch' " NORETRACT)}},
    {"FieldAggregatorRetractNullTest.testFieldListaggAgg",
     "STRING",
     "listagg",
     NOOPT,
     {RE("a", "b", "Aggregate function 'listagg' " NORETRACT)}},
    {"FieldAggregatorRetractNullTest.testFieldBoolAndAgg",
     "BOOLEAN",
     "bool_and",
     NOOPT,
     {RE("true", "true", "Aggregate function 'bool_and' " NORETRACT)}},
    {"FieldAggregatorRetractNullTest.testFieldBoolOrAgg",
     "BOOLEAN",
     "bool_or",
     NOOPT,
     {RE("true", "true", "Aggregate function 'bool_or' " NORETRACT)}},
    {"FieldAggregatorRetractNullTest.testLastValueAgg",
     "INT",
     "last_value",
     NOOPT,
     {R("1", "1", NULL)}},
    {"FieldAggregatorRetractNullTest.testLastNonNullValueAgg",
     "INT",
     "last_non_null_value",
     NOOPT,
     {R("1", "1", NULL), R("1", NULL, "1")}},
    {"FieldAggregatorRetractNullTest.testFieldProductAgg",
     "INT",
     "product",
     NOOPT,
     {R("1", "1", "1")}},
    {"FieldAggregatorRetractNullTest.testFieldPrimaryKeyAgg",
     "INT",
     "primary-key",
     NOOPT,
     {R("1", "1", "1"), A("1", "2", "2")}},

    /* ---- integer overflow wraps in the column's width (FieldSumAgg, FieldProductAgg) ---- */
    {"FieldSumAgg: (byte) (a + b) / (byte) (a - b) / (byte) -v",
     "TINYINT",
     "sum",
     NOOPT,
     {A("127", "1", "-128"), A("-128", "-1", "127"), A("100", "100", "-56"), R("-128", "1", "127"),
      R("127", "-1", "-128"), R(NULL, "-128", "-128"), R(NULL, "127", "-127")}},
    {"FieldSumAgg: (short) (a + b) / (short) (a - b)",
     "SMALLINT",
     "sum",
     NOOPT,
     {A("32767", "1", "-32768"), A("-32768", "-32768", "0"), R("-32768", "1", "32767"),
      R(NULL, "-32768", "-32768")}},
    {"FieldSumAgg: int + int / int - int / -int",
     "INT",
     "sum",
     NOOPT,
     {A("2147483647", "1", "-2147483648"), A("-2147483648", "-1", "2147483647"),
      R("-2147483648", "1", "2147483647"), R(NULL, "-2147483648", "-2147483648")}},
    {"FieldSumAgg: long + long / long - long / -long",
     "BIGINT",
     "sum",
     NOOPT,
     {A("9223372036854775807", "1", "-9223372036854775808"),
      A("-9223372036854775808", "-9223372036854775808", "0"),
      R("-9223372036854775808", "1", "9223372036854775807"),
      R("9223372036854775807", "-1", "-9223372036854775808"),
      R(NULL, "-9223372036854775808", "-9223372036854775808")}},
    {"FieldSumAgg: ignore-retract keeps the accumulator (FieldIgnoreRetractAgg)",
     "BIGINT",
     "sum",
     {"fields.v.ignore-retract", NULL},
     {"true", NULL},
     {R("10", "5", "10"), R(NULL, "5", NULL),
      A("9223372036854775807", "1", "-9223372036854775808")}},
    {"FieldProductAgg: (byte) (a * b) / (byte) (a / b)",
     "TINYINT",
     "product",
     NOOPT,
     {A("64", "2", "-128"), A("100", "100", "16"), A("-128", "-128", "0"), R("-128", "-1", "-128"),
      R("7", "-2", "-3"), R("-7", "2", "-3"), RE("5", "0", "/ by zero")}},
    {"FieldProductAgg: (short) (a * b)",
     "SMALLINT",
     "product",
     NOOPT,
     {A("300", "300", "24464"), A("1000", "1000", "16960"), R("-32768", "-1", "-32768")}},
    {"FieldProductAgg: int * int / int / int",
     "INT",
     "product",
     NOOPT,
     {A("65536", "65536", "0"), A("2147483647", "2", "-2"), R("-2147483648", "-1", "-2147483648"),
      RE("5", "0", "/ by zero"), R("5", NULL, "5"), A(NULL, NULL, NULL)}},
    {"FieldProductAgg: long * long / long / long",
     "BIGINT",
     "product",
     NOOPT,
     {A("4294967296", "4294967296", "0"), A("9223372036854775807", "2", "-2"),
      A("3037000500", "3037000500", "-9223372036709301616"),
      R("-9223372036854775808", "-1", "-9223372036854775808")}},

    /* ---- FLOAT / DOUBLE: IEEE 754 in the column's width, never an error ---- */
    {"FieldSumAgg: float + float",
     "FLOAT",
     "sum",
     NOOPT,
     {A("16777216", "1", "16777216"), A("3.4028235e38", "3.4028235e38", "inf"),
      A("nan", "1", "nan"), R(NULL, "0", "-0.0"), R("inf", "inf", "nan")}},
    {"FieldSumAgg: double + double",
     "DOUBLE",
     "sum",
     NOOPT,
     {A("0.1", "0.2", "0.30000000000000004"), A("1.7976931348623157e308", "1e308", "inf"),
      R(NULL, "-0.0", "0")}},
    {"FieldProductAgg: float / double, division by zero is infinity",
     "FLOAT",
     "product",
     NOOPT,
     {A("1e30", "1e30", "inf"), R("1", "0", "inf"), R("0", "0", "nan")}},
    {"FieldProductAgg: double",
     "DOUBLE",
     "product",
     NOOPT,
     {A("1e200", "1e200", "inf"), R("-1", "0", "-inf")}},

    /* ---- DECIMAL: DecimalUtils.add/subtract and Decimal.fromBigDecimal ---- */
    {"DecimalUtils.add: compact sums that fit a long skip the precision check",
     "DECIMAL(5, 2)",
     "sum",
     NOOPT,
     {A("999.99", "0.01", "1000.00"), R("-999.99", "0.01", "-1000.00"),
      A("1.25", "-1.25", "0.00")}},
    {"DecimalUtils.add: a compact sum past a long is fromBigDecimal, null past the precision",
     "DECIMAL(18, 0)",
     "sum",
     NOOPT,
     {A("999999999999999999", "999999999999999999", "1999999999999999998"),
      A("9000000000000000000", "999999999999999999", NULL),
      R("-9000000000000000000", "999999999999999999", NULL)}},
    {"DecimalUtils.add: non-compact sums are null past the precision",
     "DECIMAL(20, 2)",
     "sum",
     NOOPT,
     {A("999999999999999999.99", "0.01", NULL), R("-999999999999999999.99", "0.01", NULL),
      A("999999999999999999.98", "0.01", "999999999999999999.99"), R(NULL, "0.01", "-0.01")}},
    {"DecimalUtils.add: DECIMAL(38, 0) at its limit",
     "DECIMAL(38, 0)",
     "sum",
     NOOPT,
     {A("99999999999999999999999999999999999999", "1", NULL),
      A("99999999999999999999999999999999999999", "99999999999999999999999999999999999999", NULL),
      R("-99999999999999999999999999999999999999", "1", NULL),
      R(NULL, "99999999999999999999999999999999999999",
        "-99999999999999999999999999999999999999")}},
    {"FieldProductAgg: BigDecimal.multiply then fromBigDecimal (HALF_UP, null past precision)",
     "DECIMAL(5, 2)",
     "product",
     NOOPT,
     {A("1.25", "1.25", "1.56"), A("0.05", "0.10", "0.01"), A("-0.05", "0.10", "-0.01"),
      A("1.15", "1.15", "1.32"), A("999.99", "10.00", NULL), A("-999.99", "1.00", "-999.99")}},
    {"FieldProductAgg: BigDecimal.divide (exact) then fromBigDecimal",
     "DECIMAL(5, 2)",
     "product",
     NOOPT,
     {R("1.00", "8.00", "0.13"), R("-1.00", "8.00", "-0.13"), R("999.99", "0.01", NULL),
      RE("1.00", "3.00", "Non-terminating decimal expansion"),
      RE("1.00", "0.00", "Division by zero"), R(NULL, "2.00", NULL)}},

    /* ---- max / min: InternalRowUtils.compare, nulls skipped ---- */
    {"FieldMaxAgg: a null side yields the other",
     "INT",
     "max",
     NOOPT,
     {A(NULL, "5", "5"), A("5", NULL, "5"), A(NULL, NULL, NULL), A("-1", "-2", "-1")}},
    {"FieldMinAgg: a null side yields the other",
     "BIGINT",
     "min",
     NOOPT,
     {A(NULL, "5", "5"), A("5", NULL, "5"), A(NULL, NULL, NULL), A("-1", "-2", "-2")}},
    {"FieldMaxAgg: BinaryString.compareTo (unsigned UTF-8 bytes, not UTF-16)",
     "STRING",
     "max",
     NOOPT,
     {A("Z", "a", "a"), A("ab", "abc", "abc"), A("z", "\xc3\xa9", "\xc3\xa9"),
      A("\xef\xbd\x81", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80")}},
    {"FieldMinAgg: BinaryString.compareTo",
     "VARCHAR(10)",
     "min",
     NOOPT,
     {A("ab", "abc", "ab"), A("\xf0\x9f\x98\x80", "\xef\xbd\x81", "\xef\xbd\x81"),
      A("b", NULL, "b")}},
    {"FieldMaxAgg: byte arrays compare unsigned",
     "VARBINARY(4)",
     "max",
     NOOPT,
     {A("\x7f", "\x80", "\x80"), A("\x01\x02", "\x01", "\x01\x02")}},
    {"FieldMaxAgg / FieldMinAgg: Decimal.compareTo",
     "DECIMAL(5, 2)",
     "max",
     NOOPT,
     {A("-1.00", "0.50", "0.50"), A("999.99", "-999.99", "999.99")}},
    {"FieldMinAgg: Decimal.compareTo (non-compact)",
     "DECIMAL(30, 2)",
     "min",
     NOOPT,
     {A("-1.00", "0.50", "-1.00"),
      A("1000000000000000000000.00", "999999999999999999999.99", "999999999999999999999.99")}},
    {"FieldMaxAgg: Float.compare (-0.0 < 0.0, NaN above everything)",
     "FLOAT",
     "max",
     NOOPT,
     {A("-0.0", "0", "0"), A("0", "-0.0", "0"), A("nan", "inf", "nan"), A("1", "nan", "nan")}},
    {"FieldMinAgg: Double.compare",
     "DOUBLE",
     "min",
     NOOPT,
     {A("-0.0", "0", "-0.0"), A("0", "-0.0", "-0.0"), A("nan", "1", "1"),
      A("-inf", "nan", "-inf")}},
    {"FieldMaxAgg: Timestamp.compareTo",
     "TIMESTAMP(3)",
     "max",
     NOOPT,
     {A("1000", "999", "1000"), A("-5", "3", "3"), A(NULL, "-5", "-5")}},
    {"FieldMinAgg: DATE as int", "DATE", "min", NOOPT, {A("-1", "0", "-1"), A("7", "3", "3")}},
    {"FieldMaxAgg: BOOLEAN is incomparable once two values meet",
     "BOOLEAN",
     "max",
     NOOPT,
     {A(NULL, "true", "true"), A("false", NULL, "false"),
      AE("true", "false", "Incomparable type")}},
    {"FieldMinAgg: BOOLEAN is incomparable once two values meet",
     "BOOLEAN",
     "min",
     NOOPT,
     {AE("true", "false", "Incomparable type")}},
    {"FieldMaxAgg: ignore-retract keeps the accumulator (FieldIgnoreRetractAgg)",
     "INT",
     "max",
     {"fields.v.ignore-retract", NULL},
     {"true", NULL},
     {R("3", "1", "3"), R(NULL, "1", NULL)}},

    /* ---- bool_and / bool_or with nulls (FieldBoolAndAgg, FieldBoolOrAgg) ---- */
    {"FieldBoolAndAgg: a null side yields the other",
     "BOOLEAN",
     "bool_and",
     NOOPT,
     {A(NULL, "false", "false"), A("true", NULL, "true"), A(NULL, NULL, NULL),
      A("true", "true", "true")}},
    {"FieldBoolOrAgg: a null side yields the other",
     "BOOLEAN",
     "bool_or",
     NOOPT,
     {A(NULL, "true", "true"), A("false", NULL, "false"), A(NULL, NULL, NULL),
      A("true", "false", "true")}},

    /* ---- sum with nulls: FieldSumAgg.agg / retract ---- */
    {"FieldSumAgg: a null side yields the other, retract(null, null) is null",
     "INT",
     "sum",
     NOOPT,
     {A("5", NULL, "5"), A(NULL, NULL, NULL), R("5", NULL, "5"), R(NULL, NULL, NULL)}},
    {"FieldLastValueAgg.retract is null, FieldLastNonNullValueAgg.retract nulls on a value",
     "STRING",
     "last_value",
     NOOPT,
     {R("a", NULL, NULL), A("a", "b", "b")}},
};

/* ---- values ------------------------------------------------------------------------- */

static i128 parse_dec(const char *s, int32_t scale) {
  bool neg = *s == '-';
  if (neg || *s == '+') s++;
  i128 v = 0;
  int32_t frac = -1;
  for (; *s; s++) {
    if (*s == '.') {
      frac = 0;
      continue;
    }
    assert_true(*s >= '0' && *s <= '9');
    v = v * 10 + (*s - '0');
    if (frac >= 0) frac++;
  }
  if (frac < 0) frac = 0;
  assert_true(frac <= scale);
  for (; frac < scale; frac++) v *= 10;
  return neg ? -v : v;
}

static void dec_put(uint8_t d[16], i128 v) {
  unsigned __int128 u = (unsigned __int128)v;
  for (int i = 0; i < 16; i++) d[i] = (uint8_t)(u >> (8 * i));
}

static void cell_of(const mt_field *f, lit s, mt_cell *c) {
  memset(c, 0, sizeof *c);
  c->null = s == NULL;
  if (!s) return;
  switch (f->vc) {
    case MT_VC_BOOL: c->v.i = strcmp(s, "true") == 0; break;
    case MT_VC_I8:
    case MT_VC_I16:
    case MT_VC_I32:
    case MT_VC_I64: c->v.i = strtoll(s, NULL, 10); break;
    case MT_VC_F32: c->v.f = strtof(s, NULL); break;
    case MT_VC_F64: c->v.d = strtod(s, NULL); break;
    case MT_VC_DEC: dec_put(c->v.dec, parse_dec(s, f->type->scale)); break;
    case MT_VC_BYTES:
      c->p = (const uint8_t *)s;
      c->len = (int32_t)strlen(s);
      break;
    default: fail_msg("no literal form for this type");
  }
}

static bool float_same(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return a == b && signbit(a) == signbit(b);
}

/* Renders a cell for failure messages. */
static void show(const mt_field *f, const mt_cell *c, char *buf, size_t n) {
  if (c->null) {
    snprintf(buf, n, "null");
    return;
  }
  switch (f->vc) {
    case MT_VC_F32: snprintf(buf, n, "%.9g", (double)c->v.f); break;
    case MT_VC_F64: snprintf(buf, n, "%.17g", c->v.d); break;
    case MT_VC_DEC: {
      i128 v = 0;
      for (int i = 15; i >= 0; i--) v = (i128)(((unsigned __int128)v << 8) | c->v.dec[i]);
      snprintf(buf, n, "unscaled %s%llu...", v < 0 ? "-" : "",
               (unsigned long long)(v < 0 ? -v : v));
      break;
    }
    case MT_VC_BYTES: snprintf(buf, n, "'%.*s'", (int)c->len, (const char *)c->p); break;
    default: snprintf(buf, n, "%lld", (long long)c->v.i); break;
  }
}

static bool cell_same(const mt_field *f, const mt_cell *a, const mt_cell *b) {
  if (a->null || b->null) return a->null == b->null;
  switch (f->vc) {
    case MT_VC_F32: return float_same(a->v.f, b->v.f);
    case MT_VC_F64: return float_same(a->v.d, b->v.d);
    case MT_VC_DEC: return memcmp(a->v.dec, b->v.dec, 16) == 0;
    case MT_VC_BYTES: return a->len == b->len && memcmp(a->p, b->p, (size_t)a->len) == 0;
    case MT_VC_BOOL: return (a->v.i != 0) == (b->v.i != 0);
    default: return a->v.i == b->v.i;
  }
}

/* ---- the run -------------------------------------------------------------------------- */

static void run_case(const gcase *g) {
  paimon_error err = {0};
  char *ts = pm_asprintf("ROW<`k` INT NOT NULL, `v` %s>", g->type);
  pm_type *vt = NULL;
  PM_ASSERT_OK(pm_type_parse(&vt, ts, &err), &err);
  pm_free(ts);
  const char *ok[4] = {"merge-engine", "fields.v.aggregate-function"};
  const char *ov[4] = {"aggregation", g->fn};
  int32_t no = 2;
  for (int i = 0; i < 2; i++)
    if (g->ok[i]) ok[no] = g->ok[i], ov[no++] = g->ov[i];
  const char *pk[1] = {"k"};
  pm_mt_engine *e = NULL;
  int rc = pm_mt_engine_new(&e, vt, pk, 1, ok, ov, no, &err);
  if (rc) fail_msg("%s: engine: %s", g->cite, err.message);
  static const int32_t value_cols[2] = {0, 1};
  mt_state s;
  PM_ASSERT_OK(pm_mt_state_init(&s, e, value_cols, &err), &err);
  pm_mt_state_reset(&s);
  const mt_field *f = &e->f[1];
  mt_cell prev = {.null = true};
  for (int i = 0; i < 8 && g->steps[i].op; i++) {
    const step *st = &g->steps[i];
    if (st->op == RESET) {
      pm_mt_state_reset(&s);
      continue;
    }
    mt_cell acc, in, out, want;
    if (st->acc == PREV) acc = prev;
    else cell_of(f, st->acc, &acc);
    cell_of(f, st->in, &in);
    memset(&out, 0, sizeof out);
    memset(&err, 0, sizeof err);
    rc = pm_mt_field_agg(&s, 1, &acc, &in, st->op == RET, &out, &err);
    const char *what = st->op == RET ? "retract" : "agg";
    if (st->err) {
      if (rc == 0 || !strstr(err.message, st->err))
        fail_msg("%s, step %d (%s): want an error containing \"%s\", got status %d \"%s\"", g->cite,
                 i + 1, what, st->err, rc, err.message);
      continue;
    }
    if (rc) fail_msg("%s, step %d (%s): status %d: %s", g->cite, i + 1, what, rc, err.message);
    cell_of(f, st->want, &want);
    if (!cell_same(f, &out, &want)) {
      char got[96], exp[96];
      show(f, &out, got, sizeof got);
      show(f, &want, exp, sizeof exp);
      fail_msg("%s, step %d (%s): got %s, want %s", g->cite, i + 1, what, got, exp);
    }
    prev = out;
  }
  pm_mt_state_free(&s);
  pm_mt_engine_free(e);
  pm_type_free(vt);
}

static void test_golden_cases(void **state) {
  (void)state;
  size_t n = sizeof CASES / sizeof CASES[0];
  for (size_t i = 0; i < n; i++) run_case(&CASES[i]);
  printf("%zu golden cases\n", n);
}

/* "count" is no aggregate function in Java 1.4.1 (FieldAggregatorFactory has none), and an
 * unknown name must not fall back to a default. */
static void test_unknown_function_refused(void **state) {
  (void)state;
  paimon_error err = {0};
  pm_type *vt = NULL;
  PM_ASSERT_OK(pm_type_parse(&vt, "ROW<`k` INT NOT NULL, `v` BIGINT>", &err), &err);
  const char *ok[2] = {"merge-engine", "fields.v.aggregate-function"};
  const char *ov[2] = {"aggregation", "count"};
  const char *pk[1] = {"k"};
  pm_mt_engine *e = NULL;
  assert_int_not_equal(pm_mt_engine_new(&e, vt, pk, 1, ok, ov, 2, &err), 0);
  assert_non_null(strstr(err.message, "'count'"));
  assert_null(e);
  pm_type_free(vt);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_golden_cases),
      cmocka_unit_test(test_unknown_function_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
