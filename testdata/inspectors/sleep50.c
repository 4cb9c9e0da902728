/* sleep50.c: the schedule benchmark's one-process inspector (issue 12.4):
   sleeps $EVALCAL_TEST_DELAY seconds (default 0.05), then answers pass.
   One small static program, so that a call costs what the inspector's
   work costs, 50 ms, and little else; sleep.sh is the same with a shell
   and a `sleep` started on top. programs/exec/bench_test.go builds it
   with the C compiler, when there is one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(void) {
	const char *v = getenv("EVALCAL_TEST_DELAY");
	double d = v ? atof(v) : 0.05;
	struct timespec ts;
	ts.tv_sec = (time_t)d;
	ts.tv_nsec = (long)((d - (double)ts.tv_sec) * 1e9);
	while (nanosleep(&ts, &ts) != 0) {
		if (errno != EINTR) {
			perror("sleep50: nanosleep");
			return 1;
		}
	}
	fputs("{\"system\":\"s\",\"runtime_fidelity\":70,\"task_effectiveness\":70,\"verdict\":\"pass\"}\n", stdout);
	return 0;
}
