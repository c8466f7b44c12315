#ifndef NOISECLOCK_CCURL_SHIM_H
#define NOISECLOCK_CCURL_SHIM_H
#include <curl/curl.h>

static inline CURLcode nc_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

// curl_easy_setopt and curl_easy_getinfo are variadic: one typed helper per kind of argument.
static inline CURLcode nc_curl_set_long(CURL *curl, CURLoption option, long value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode nc_curl_set_string(CURL *curl, CURLoption option, const char *value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode nc_curl_set_pointer(CURL *curl, CURLoption option, void *value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode nc_curl_set_size(CURL *curl, CURLoption option, curl_off_t value) { return curl_easy_setopt(curl, option, value); }
static inline CURLcode nc_curl_set_write(CURL *curl, size_t (*callback)(char *, size_t, size_t, void *)) {
    return curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, callback);
}
static inline CURLcode nc_curl_set_progress(CURL *curl, int (*callback)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t)) {
    return curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, callback);
}
static inline long nc_curl_response_code(CURL *curl) {
    long code = 0;
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &code);
    return code;
}
static inline const char *nc_curl_content_type(CURL *curl) {
    char *type = NULL;
    curl_easy_getinfo(curl, CURLINFO_CONTENT_TYPE, &type);
    return type;
}
static inline const char *nc_curl_effective_url(CURL *curl) {
    char *url = NULL;
    curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &url);
    return url;
}
static inline long nc_curl_redirect_count(CURL *curl) {
    long count = 0;
    curl_easy_getinfo(curl, CURLINFO_REDIRECT_COUNT, &count);
    return count;
}
#endif
