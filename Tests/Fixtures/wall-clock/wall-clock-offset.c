// A wall clock off by WALL_CLOCK_OFFSET_SECONDS (negative: behind), and nothing else: loaded with
// LD_PRELOAD, it shifts CLOCK_REALTIME as clock_gettime, gettimeofday and time give it, as a device
// whose clock is wrong, or an NTP step, does. The monotonic clocks and the timers armed on them
// are the kernel's own. (libfaketime also moves timers armed on the monotonic clock by the
// offset, even with FAKETIME_DONT_FAKE_MONOTONIC, so under it a 1 ms Task.sleep lasts as long as
// the clock is behind: no device's clock does that.)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static void shift(struct timespec *t) {
    const char *text = getenv("WALL_CLOCK_OFFSET_SECONDS");
    long long offset = text ? (long long)(atof(text) * 1e9) : 0;
    long long ns = (long long)t->tv_sec * 1000000000LL + t->tv_nsec + offset;
    t->tv_sec = ns / 1000000000LL;
    t->tv_nsec = ns % 1000000000LL;
    if (t->tv_nsec < 0) {
        t->tv_nsec += 1000000000LL;
        t->tv_sec -= 1;
    }
}

int clock_gettime(clockid_t id, struct timespec *t) {
    static int (*real)(clockid_t, struct timespec *);
    if (!real) real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    int result = real(id, t);
    if (result == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) shift(t);
    return result;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    (void)tz;
    struct timespec t;
    int result = clock_gettime(CLOCK_REALTIME, &t);
    if (result == 0) {
        tv->tv_sec = t.tv_sec;
        tv->tv_usec = t.tv_nsec / 1000;
    }
    return result;
}

time_t time(time_t *out) {
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    if (out) *out = t.tv_sec;
    return t.tv_sec;
}
