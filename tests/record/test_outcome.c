/* SPDX-License-Identifier: MIT */
/*
 * test_outcome.c - tachyon-record's exit status with a COMMAND
 * (outcome.c): the COMMAND's status, 128+N for a signal, 126/127 for a
 * COMMAND that cannot run, 125 for the recorder's own failure whatever
 * the COMMAND did; and the words for how it ended. Real wait statuses
 * from real children.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../unit/harness.h"
#include "cli.h"
#include "outcome.h"

/* The wait status of a child that exits with `code` or dies of `sig`. */
static int status_of(int code, int sig)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (sig) {
            signal(sig, SIG_DFL);
            raise(sig);
        }
        _exit(code);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return st;
}

TEST(codes)
{
    CHECK(outcome_exit_code(status_of(0, 0)) == 0, "exit 0");
    CHECK(outcome_exit_code(status_of(3, 0)) == 3, "exit 3");
    CHECK(outcome_exit_code(status_of(255, 0)) == 255, "exit 255");
    CHECK(outcome_exit_code(status_of(0, SIGTERM)) == 143, "SIGTERM");
    CHECK(outcome_exit_code(status_of(0, SIGKILL)) == 137, "SIGKILL");
    CHECK(outcome_exec_failure(ENOENT) == CLI_EXIT_NOT_FOUND, "ENOENT 127");
    CHECK(outcome_exec_failure(ENOTDIR) == 127, "ENOTDIR 127");
    CHECK(outcome_exec_failure(EACCES) == CLI_EXIT_CANNOT_RUN, "EACCES 126");
    CHECK(outcome_exec_failure(ENOEXEC) == 126, "ENOEXEC 126");
    int ok = status_of(0, 0), three = status_of(3, 0);
    CHECK(outcome_command_code(CLI_EXIT_OK, three) == 3, "passed through");
    CHECK(outcome_command_code(CLI_EXIT_TROUBLE, ok) == 125,
          "a failed recording is 125 though the COMMAND exited 0");
    CHECK(outcome_command_code(CLI_EXIT_DATA, three) == 125, "125 wins");
    CHECK(outcome_command_code(CLI_EXIT_NOT_FOUND, 0) == 127, "127 kept");
    CHECK(outcome_command_code(CLI_EXIT_CANNOT_RUN, 0) == 126, "126 kept");
}

TEST(words)
{
    char buf[96];
    outcome_describe(status_of(3, 0), buf, sizeof buf);
    CHECK(strcmp(buf, "exited with status 3") == 0, "'%s'", buf);
    outcome_describe(status_of(0, SIGKILL), buf, sizeof buf);
    CHECK(strcmp(buf, "was killed by SIGKILL (signal 9)") == 0, "'%s'", buf);
    outcome_describe(status_of(0, SIGINT), buf, sizeof buf);
    CHECK(strcmp(buf, "was killed by SIGINT (signal 2)") == 0, "'%s'", buf);
}

TESTS(TCASE(codes), TCASE(words))
