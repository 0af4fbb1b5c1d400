/* How often each of N processes sharing one core gets a turn when all of them only
 * call sched_yield: what a rank waiting by polling and yielding pays per hop when
 * ranks outnumber cores. cc -O2 -o yield yield.c && ./yield 8 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 8;
    for (int i = 0; i < n; i++) {
        if (fork() != 0)
            continue;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(0, &one);
        sched_setaffinity(0, sizeof one, &one);
        long turns = 0;
        double start = seconds();
        while (seconds() - start < 1.0) {
            sched_yield();
            turns++;
        }
        printf("process %d: %ld turns a second, one every %.2f us\n", i, turns, 1e6 / turns);
        return 0;
    }
    while (wait(NULL) > 0)
        ;
    return 0;
}
