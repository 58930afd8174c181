/* Tests for src/io/s3/sigv4: AWS Signature V4 against published vectors.
 *
 * - The AWS SigV4 test suite (aws-sig-v4-test-suite: credentials AKIDEXAMPLE, 20150830T123600Z,
 *   us-east-1, service "service"): get-vanilla, get-vanilla-query-order-key-case,
 *   post-x-www-form-urlencoded, get-unreserved, get-utf8.
 * - The S3 API reference example "GET Object" (examplebucket, Range bytes=0-9,
 *   20130524T000000Z) of "Signature Calculations for the Authorization Header". */
#include "test_support.h"

#include <stdio.h>
#include <string.h>

#include "io/s3/sigv4.h"

#define EMPTY_SHA "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

static const pm_sigv4_credentials SUITE = {"AKIDEXAMPLE",
                                           "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "us-east-1",
                                           "service", "20150830T123600Z"};

static void sign_ok(pm_sigv4_result *r, const pm_sigv4_request *q, const pm_sigv4_credentials *c) {
  paimon_error err = {0, ""};
  int rc = pm_sigv4_sign(r, q, c, &err);
  if (rc) fail_msg("sign: %s", err.message);
}

/* The SHA-256 of the string to sign's last line is the hash of the canonical request. */
static void check_sts(const pm_sigv4_result *r, const char *scope_line, const char *cr_hash) {
  char want[256];
  snprintf(want, sizeof want, "AWS4-HMAC-SHA256\n%s\n%s\n%s",
           strncmp(scope_line, "2015", 4) == 0 ? "20150830T123600Z" : "20130524T000000Z",
           scope_line, cr_hash);
  assert_string_equal(r->string_to_sign, want);
}

static void test_get_vanilla(void **state) {
  (void)state;
  pm_sigv4_header h[] = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
  pm_sigv4_request q = {"GET", "/", NULL, h, 2, EMPTY_SHA};
  pm_sigv4_result r;
  sign_ok(&r, &q, &SUITE);
  assert_string_equal(r.canonical_request,
                      "GET\n/\n\nhost:example.amazonaws.com\n"
                      "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" EMPTY_SHA);
  check_sts(&r, "20150830/us-east-1/service/aws4_request",
            "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
  assert_string_equal(r.signature,
                      "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  assert_string_equal(r.authorization,
                      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/"
                      "aws4_request, SignedHeaders=host;x-amz-date, "
                      "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  pm_sigv4_result_free(&r);
}

static void test_query_order_key_case(void **state) {
  (void)state;
  /* the headers arrive in reverse order too: both lists must be sorted */
  pm_sigv4_header h[] = {{"X-Amz-Date", "20150830T123600Z"}, {"Host", "example.amazonaws.com"}};
  pm_sigv4_request q = {"GET", "/", "Param2=value2&Param1=value1", h, 2, EMPTY_SHA};
  pm_sigv4_result r;
  sign_ok(&r, &q, &SUITE);
  assert_string_equal(r.canonical_request,
                      "GET\n/\nParam1=value1&Param2=value2\nhost:example.amazonaws.com\n"
                      "x-amz-date:20150830T123600Z\n\nhost;x-amz-date\n" EMPTY_SHA);
  check_sts(&r, "20150830/us-east-1/service/aws4_request",
            "816cd5b414d056048ba4f7c5386d6e0533120fb1fcfa93762cf0fc39e2cf19e0");
  assert_string_equal(r.signature,
                      "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
  pm_sigv4_result_free(&r);
}

static void test_post_form_urlencoded(void **state) {
  (void)state;
  char body_hash[65];
  assert_int_equal(pm_sha256_hex(body_hash, "Param1=value1", 13), 0);
  assert_string_equal(body_hash,
                      "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e");
  pm_sigv4_header h[] = {{"Content-Type", "application/x-www-form-urlencoded"},
                         {"Host", "example.amazonaws.com"},
                         {"X-Amz-Date", "20150830T123600Z"}};
  pm_sigv4_request q = {"POST", "/", NULL, h, 3, body_hash};
  pm_sigv4_result r;
  sign_ok(&r, &q, &SUITE);
  assert_string_equal(r.canonical_request,
                      "POST\n/\n\ncontent-type:application/x-www-form-urlencoded\n"
                      "host:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\n"
                      "content-type;host;x-amz-date\n"
                      "9095672bbd1f56dfc5b65f3e153adc8731a4a654192329106275f4c7b24d0b6e");
  check_sts(&r, "20150830/us-east-1/service/aws4_request",
            "42a5e5bb34198acb3e84da4f085bb7927f2bc277ca766e6d19c73c2154021281");
  assert_string_equal(r.signature,
                      "ff11897932ad3f4e8b18135d722051e5ac45fc38421b1da7b9d196a0fe09473a");
  assert_string_equal(r.signed_headers, "content-type;host;x-amz-date");
  pm_sigv4_result_free(&r);
}

/* get-unreserved and get-utf8: the path is encoded once, by pm_sigv4_uri_encode. */
static void test_path_encoding(void **state) {
  (void)state;
  pm_sigv4_header h[] = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
  const char *unreserved = "/-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  pm_buf p = {0};
  assert_int_equal(pm_sigv4_uri_encode(&p, unreserved, strlen(unreserved), true), 0);
  assert_int_equal(pm_buf_append(&p, "", 1), 0);
  assert_string_equal((char *)p.data, unreserved);
  pm_sigv4_request q = {"GET", (char *)p.data, NULL, h, 2, EMPTY_SHA};
  pm_sigv4_result r;
  sign_ok(&r, &q, &SUITE);
  assert_string_equal(r.signature,
                      "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f");
  pm_sigv4_result_free(&r);

  pm_buf_clear(&p);
  const char *utf8 = "/\xe1\x88\xb4";
  assert_int_equal(pm_sigv4_uri_encode(&p, utf8, strlen(utf8), true), 0);
  assert_int_equal(pm_buf_append(&p, "", 1), 0);
  assert_string_equal((char *)p.data, "/%E1%88%B4");
  q.path = (char *)p.data;
  sign_ok(&r, &q, &SUITE);
  assert_string_equal(r.signature,
                      "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85");
  pm_sigv4_result_free(&r);

  /* S3 keys: a space, '+', '=' and an already encoded "%2F" are encoded exactly once */
  pm_buf_clear(&p);
  const char *key = "/b/dt=2024 01/a+b%2F";
  assert_int_equal(pm_sigv4_uri_encode(&p, key, strlen(key), true), 0);
  assert_int_equal(pm_buf_append(&p, "", 1), 0);
  assert_string_equal((char *)p.data, "/b/dt%3D2024%2001/a%2Bb%252F");
  pm_buf_free(&p);
}

/* Header values are trimmed and inner runs of spaces collapse (get-header-value-trim). */
static void test_header_trim(void **state) {
  (void)state;
  pm_sigv4_header h[] = {{"Host", "example.amazonaws.com"},
                         {"My-Header1", " value1"},
                         {"My-Header2", " \"a   b   c\"  "},
                         {"X-Amz-Date", "20150830T123600Z"}};
  pm_sigv4_request q = {"GET", "/", NULL, h, 4, EMPTY_SHA};
  pm_sigv4_result r;
  sign_ok(&r, &q, &SUITE);
  assert_non_null(strstr(r.canonical_request, "\nmy-header1:value1\nmy-header2:\"a b c\"\n"));
  assert_string_equal(r.signed_headers, "host;my-header1;my-header2;x-amz-date");
  pm_sigv4_result_free(&r);
}

static void test_s3_get_object_range(void **state) {
  (void)state;
  pm_sigv4_credentials c = {"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                            "us-east-1", "s3", "20130524T000000Z"};
  pm_sigv4_header h[] = {{"Host", "examplebucket.s3.amazonaws.com"},
                         {"Range", "bytes=0-9"},
                         {"x-amz-content-sha256", EMPTY_SHA},
                         {"x-amz-date", "20130524T000000Z"}};
  pm_sigv4_request q = {"GET", "/test.txt", NULL, h, 4, EMPTY_SHA};
  pm_sigv4_result r;
  sign_ok(&r, &q, &c);
  assert_string_equal(r.canonical_request,
                      "GET\n/test.txt\n\nhost:examplebucket.s3.amazonaws.com\nrange:bytes=0-9\n"
                      "x-amz-content-sha256:" EMPTY_SHA
                      "\nx-amz-date:20130524T000000Z\n\n"
                      "host;range;x-amz-content-sha256;x-amz-date\n" EMPTY_SHA);
  check_sts(&r, "20130524/us-east-1/s3/aws4_request",
            "7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972");
  assert_string_equal(r.signature,
                      "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  assert_string_equal(r.authorization,
                      "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/"
                      "aws4_request, SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, "
                      "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41");
  pm_sigv4_result_free(&r);
}

static void test_hashes_and_dates(void **state) {
  (void)state;
  char h[65], m[25], d[17];
  assert_int_equal(pm_sha256_hex(h, "", 0), 0);
  assert_string_equal(h, EMPTY_SHA);
  /* RFC 1321 test suite: MD5("abc") = 900150983cd24fb0d6963f7d28e17f72 */
  assert_int_equal(pm_md5_base64(m, "abc", 3), 0);
  assert_string_equal(m, "kAFQmDzST7DWlj99KOF/cg==");
  pm_sigv4_amz_date(d, 1440938160);
  assert_string_equal(d, "20150830T123600Z");
  /* a malformed date is refused, naming it */
  pm_sigv4_credentials c = SUITE;
  c.amz_date = "2015-08-30";
  pm_sigv4_header hd[] = {{"Host", "x"}};
  pm_sigv4_request q = {"GET", "/", NULL, hd, 1, EMPTY_SHA};
  pm_sigv4_result r;
  paimon_error err = {0, ""};
  assert_int_equal(pm_sigv4_sign(&r, &q, &c, &err), PAIMON_EINVAL);
  assert_non_null(strstr(err.message, "2015-08-30"));
  pm_sigv4_result_free(&r);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_get_vanilla),          cmocka_unit_test(test_query_order_key_case),
      cmocka_unit_test(test_post_form_urlencoded), cmocka_unit_test(test_path_encoding),
      cmocka_unit_test(test_header_trim),          cmocka_unit_test(test_s3_get_object_range),
      cmocka_unit_test(test_hashes_and_dates),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
