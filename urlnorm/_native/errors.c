/* Error codes (core/errors.py): the URL Standard's validation-error names where one fits. */
#include "urlnorm.h"

const char *const UN_ERROR_NAMES[UN_N_ERRORS] = {
    [UN_OK] = "",
    [UN_ERR_MISSING_SCHEME] = "missing-scheme-non-relative-URL",
    [UN_ERR_INVALID_SCHEME] = "invalid-scheme",
    [UN_ERR_HOST_MISSING] = "host-missing",
    [UN_ERR_HOST_INVALID_CODE_POINT] = "host-invalid-code-point",
    [UN_ERR_DOMAIN_INVALID_CODE_POINT] = "domain-invalid-code-point",
    [UN_ERR_DOMAIN_TO_ASCII] = "domain-to-ASCII",
    [UN_ERR_PORT_INVALID] = "port-invalid",
    [UN_ERR_PORT_OUT_OF_RANGE] = "port-out-of-range",
    [UN_ERR_IPV4_TOO_MANY_PARTS] = "IPv4-too-many-parts",
    [UN_ERR_IPV4_NON_NUMERIC_PART] = "IPv4-non-numeric-part",
    [UN_ERR_IPV4_OUT_OF_RANGE_PART] = "IPv4-out-of-range-part",
    [UN_ERR_IPV6_UNCLOSED] = "IPv6-unclosed",
    [UN_ERR_IPV6_INVALID] = "IPv6-invalid",
    [UN_ERR_INVALID_BASE] = "invalid-base",
    [UN_ERR_INVALID_UTF8] = "invalid-UTF-8",
    [UN_ERR_MEMORY] = "out-of-memory",
};
