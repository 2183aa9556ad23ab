/* The procedures of steps.c, which main.c's loops call without seeing their MPI calls. */
#ifndef STEPS_H
#define STEPS_H
double step(double x, int t); /* a ring sendrecv, and an allreduce every second step */
double step_rare(double x, int t, int every); /* a ring sendrecv, an allreduce every every-th */
void send_to(int peer, int t);                /* one message */
void recv_from(int peer, int t);
double work(double x, int t); /* computation only */
#endif
