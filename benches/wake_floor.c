/* The cost of one timed wake-up on this machine: the floor under "ingest and pacing at real
 * time <= 2 % of a core". A bare loop of absolute-deadline sleeps (clock_nanosleep with
 * TIMER_ABSTIME, as src/time/pace.rs sleeps) at a fixed period, nothing else; prints the
 * CPU it cost (getrusage, user + sys) per wake-up and as a share of one core, and how late
 * the wake-ups were. Not built by cargo; run it beside `vista replay` (interleaved):
 *
 *   cc -O2 -o /tmp/wake_floor benches/wake_floor.c && /tmp/wake_floor 1000000 5
 *                                                     # period ns (1 kHz), seconds
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

int main(int argc, char **argv) {
    long period = argc > 1 ? atol(argv[1]) : 1000000;
    int secs = argc > 2 ? atoi(argv[2]) : 5;
    if (period <= 0 || secs <= 0) {
        fprintf(stderr, "usage: wake_floor PERIOD_NS SECONDS\n");
        return 2;
    }
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    long n = secs * 1000000000L / period, late_max = 0;
    double late_sum = 0;
    for (long i = 0; i < n; i++) {
        t.tv_nsec += period;
        while (t.tv_nsec >= 1000000000) {
            t.tv_nsec -= 1000000000;
            t.tv_sec++;
        }
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long late = (now.tv_sec - t.tv_sec) * 1000000000L + (now.tv_nsec - t.tv_nsec);
        if (late > late_max) late_max = late;
        late_sum += late;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + ru.ru_stime.tv_sec +
                 ru.ru_stime.tv_usec / 1e6;
    printf("period %ld ns: %ld wake-ups, CPU %.3f s = %.2f %% of a core, %.1f us per wake-up; "
           "late mean %.0f us, max %.0f us\n",
           period, n, cpu, 100 * cpu / secs, 1e6 * cpu / n, late_sum / n / 1000, late_max / 1000.0);
    return 0;
}
