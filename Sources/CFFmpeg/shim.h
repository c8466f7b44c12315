#ifndef NOISECLOCK_CFFMPEG_SHIM_H
#define NOISECLOCK_CFFMPEG_SHIM_H
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libswresample/swresample.h>
#include <libavutil/opt.h>
#include <libavutil/time.h>
#include <libavutil/channel_layout.h>
#include <libavutil/error.h>

// FFmpeg's error codes are macros Swift cannot import.
static inline int nc_av_error_again(void) { return AVERROR(EAGAIN); }
static inline int nc_av_error_eof(void) { return AVERROR_EOF; }
static inline int nc_av_error_exit(void) { return AVERROR_EXIT; }

/// What FFmpeg's blocking calls ask, again and again, while they wait on the network: stop now?
/// `stop` is set from another thread (the player stopping); `deadline_us` (on FFmpeg's monotonic
/// clock, 0 = none) ends a connect or a read that waits too long. Both through atomics, so the
/// callback takes no lock.
typedef struct {
    int stop;
    int64_t deadline_us;
    int timed_out;
} nc_stream_guard;

static inline int nc_stream_guard_check(void *opaque) {
    nc_stream_guard *guard = (nc_stream_guard *)opaque;
    if (__atomic_load_n(&guard->stop, __ATOMIC_ACQUIRE)) return 1;
    int64_t deadline = __atomic_load_n(&guard->deadline_us, __ATOMIC_ACQUIRE);
    if (deadline != 0 && av_gettime_relative() > deadline) {
        __atomic_store_n(&guard->timed_out, 1, __ATOMIC_RELEASE);
        return 1;
    }
    return 0;
}
static inline void nc_stream_guard_stop(nc_stream_guard *guard) { __atomic_store_n(&guard->stop, 1, __ATOMIC_RELEASE); }
static inline int nc_stream_guard_stopped(nc_stream_guard *guard) { return __atomic_load_n(&guard->stop, __ATOMIC_ACQUIRE); }
static inline int nc_stream_guard_timed_out(nc_stream_guard *guard) { return __atomic_load_n(&guard->timed_out, __ATOMIC_ACQUIRE); }
/// A deadline `microseconds` from now (0 clears it). A deadline that has passed stays recorded:
/// FFmpeg may hand out what it had buffered before it reports the end its interrupt caused.
static inline void nc_stream_guard_arm(nc_stream_guard *guard, int64_t microseconds) {
    __atomic_store_n(&guard->deadline_us, microseconds > 0 ? av_gettime_relative() + microseconds : 0, __ATOMIC_RELEASE);
}
static inline void nc_stream_guard_install(AVFormatContext *context, nc_stream_guard *guard) {
    context->interrupt_callback.callback = nc_stream_guard_check;
    context->interrupt_callback.opaque = guard;
}

/// A resampler from the decoder's format to the engine's: 44.1 kHz, stereo, signed 16-bit
/// interleaved. A decoder that names only a channel count gets that count's default layout.
static inline int nc_swr_to_engine_format(SwrContext **swr, const AVCodecContext *codec) {
    AVChannelLayout out = AV_CHANNEL_LAYOUT_STEREO;
    AVChannelLayout in;
    int rc;
    if (codec->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC || codec->ch_layout.nb_channels == 0)
        av_channel_layout_default(&in, codec->ch_layout.nb_channels > 0 ? codec->ch_layout.nb_channels : 2);
    else if ((rc = av_channel_layout_copy(&in, &codec->ch_layout)) < 0)
        return rc;
    rc = swr_alloc_set_opts2(swr, &out, AV_SAMPLE_FMT_S16, 44100, &in, codec->sample_fmt, codec->sample_rate, 0, NULL);
    av_channel_layout_uninit(&in);
    if (rc < 0) return rc;
    return swr_init(*swr);
}

/// Converts `frame` (NULL flushes) into `out`, at most `capacity` stereo frames; the frames written.
static inline int nc_swr_convert_frame(SwrContext *swr, int16_t *out, int capacity, const AVFrame *frame) {
    uint8_t *planes[1] = { (uint8_t *)out };
    if (frame == NULL) return swr_convert(swr, planes, capacity, NULL, 0);
    return swr_convert(swr, planes, capacity, (const uint8_t **)frame->extended_data, frame->nb_samples);
}

/// The stream's ICY metadata block as it last came ("StreamTitle='…';"), or NULL; free with av_free.
static inline char *nc_av_icy_packet(AVFormatContext *context) {
    uint8_t *value = NULL;
    if (context->pb == NULL) return NULL;
    if (av_opt_get(context->pb, "icy_metadata_packet", AV_OPT_SEARCH_CHILDREN, &value) < 0) return NULL;
    return (char *)value;
}
/// The ICY response headers ("icy-name: …\n"), or NULL; free with av_free.
static inline char *nc_av_icy_headers(AVFormatContext *context) {
    uint8_t *value = NULL;
    if (context->pb == NULL) return NULL;
    if (av_opt_get(context->pb, "icy_metadata_headers", AV_OPT_SEARCH_CHILDREN, &value) < 0) return NULL;
    return (char *)value;
}

/// True once (and then cleared) when the demuxer saw new tags (Ogg comments, HLS ID3).
static inline int nc_av_take_metadata_update(AVFormatContext *context, int stream) {
    int updated = (context->event_flags & AVFMT_EVENT_FLAG_METADATA_UPDATED) != 0;
    context->event_flags &= ~AVFMT_EVENT_FLAG_METADATA_UPDATED;
    if (stream >= 0 && (unsigned)stream < context->nb_streams) {
        AVStream *s = context->streams[stream];
        if (s->event_flags & AVSTREAM_EVENT_FLAG_METADATA_UPDATED) updated = 1;
        s->event_flags &= ~AVSTREAM_EVENT_FLAG_METADATA_UPDATED;
    }
    return updated;
}
/// A tag's value from the container or the stream ("title", "artist", "StreamTitle"), or NULL.
static inline const char *nc_av_tag(AVFormatContext *context, int stream, const char *key) {
    AVDictionaryEntry *entry = NULL;
    if (stream >= 0 && (unsigned)stream < context->nb_streams)
        entry = av_dict_get(context->streams[stream]->metadata, key, NULL, 0);
    if (entry == NULL) entry = av_dict_get(context->metadata, key, NULL, 0);
    return entry ? entry->value : NULL;
}

/// FFmpeg's log callback takes a va_list, which is a struct on aarch64: Debian's Swift 6.2.3 crashes
/// lowering a Swift closure of that type for arm64 (make deb ARCH=arm64). So the line is formatted
/// here, errors only, and handed to `sink` as text.
/// (The sink is a static inside a function: Swift emits a header's inline functions into the
/// module that uses them, but not its file-scope statics.)
static inline void (**nc_av_log_sink(void))(const char *line) {
    static void (*sink)(const char *line);
    return &sink;
}
static inline void nc_av_log_callback(void *context, int level, const char *format, va_list arguments) {
    (void)context;
    void (*sink)(const char *line) = *nc_av_log_sink();
    if (level > AV_LOG_ERROR || format == NULL || sink == NULL) return;
    char text[256];
    vsnprintf(text, sizeof text, format, arguments);
    sink(text);
}
/// FFmpeg's errors to `sink` (one line each, on the thread that logged it) and nothing printed.
static inline void nc_av_log_to(void (*sink)(const char *line)) {
    *nc_av_log_sink() = sink;
    av_log_set_level(AV_LOG_ERROR);
    av_log_set_callback(nc_av_log_callback);
}

#endif
