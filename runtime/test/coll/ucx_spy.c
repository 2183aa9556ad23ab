/* The messages MPICH itself sends, for compare_with_mpich.sh: an LD_PRELOAD library that counts
 * per destination the UCX tag sends of an MPICH built on ch4:ucx (Debian's), where every
 * point-to-point message of its collectives becomes one ucp_tag_send_nbx (or _sync_nbx) on the
 * destination's endpoint. MPICH creates the endpoints at MPI_Init in world-rank order, so the
 * n-th endpoint created is world rank n. coll_messages `real` calls mpiete_ucx_spy (a weak
 * symbol there) to count around one collective. Open MPI has its pml monitoring instead. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <ucp/api/ucp.h>

enum { MaxRanks = 256 };
static ucp_ep_h Eps[MaxRanks];
static int NEps;
static unsigned long long Msgs[MaxRanks], Bytes[MaxRanks];
static int Enabled;

/* Enable != 0: zero the counts and start counting; 0: stop and copy N counts out. */
void mpiete_ucx_spy(int Enable, unsigned long long *OutMsgs, unsigned long long *OutBytes, int N) {
  if (Enable) {
    memset(Msgs, 0, sizeof Msgs);
    memset(Bytes, 0, sizeof Bytes);
    Enabled = 1;
    return;
  }
  Enabled = 0;
  for (int I = 0; I < N && I < MaxRanks; ++I) {
    OutMsgs[I] = Msgs[I];
    OutBytes[I] = Bytes[I];
  }
}

static void *next(const char *Name) {
  void *F = dlsym(RTLD_NEXT, Name);
  if (F == NULL) {
    fprintf(stderr, "ucx_spy: no %s\n", Name);
    _exit(3);
  }
  return F;
}

ucs_status_t ucp_ep_create(ucp_worker_h W, const ucp_ep_params_t *P, ucp_ep_h *Ep) {
  static ucs_status_t (*Real)(ucp_worker_h, const ucp_ep_params_t *, ucp_ep_h *);
  if (Real == NULL)
    Real =
        (ucs_status_t(*)(ucp_worker_h, const ucp_ep_params_t *, ucp_ep_h *))next("ucp_ep_create");
  ucs_status_t S = Real(W, P, Ep);
  if (S == UCS_OK && NEps < MaxRanks)
    Eps[NEps++] = *Ep;
  return S;
}

static void count(ucp_ep_h Ep, size_t N, const ucp_request_param_t *P) {
  if (!Enabled)
    return;
  int R = 0;
  while (R < NEps && Eps[R] != Ep)
    ++R;
  if (R == NEps) {
    fprintf(stderr, "ucx_spy: a send on an endpoint MPI_Init did not create\n");
    return;
  }
  unsigned long long B = N; /* bytes unless a contiguous datatype of wider elements */
  if (P != NULL && (P->op_attr_mask & UCP_OP_ATTR_FIELD_DATATYPE) &&
      (P->datatype & UCP_DATATYPE_CLASS_MASK) == UCP_DATATYPE_CONTIG)
    B = N * (P->datatype >> UCP_DATATYPE_SHIFT);
  Msgs[R] += 1;
  Bytes[R] += B;
}

typedef ucs_status_ptr_t (*SendFn)(ucp_ep_h, const void *, size_t, ucp_tag_t,
                                   const ucp_request_param_t *);

ucs_status_ptr_t ucp_tag_send_nbx(ucp_ep_h Ep, const void *Buf, size_t N, ucp_tag_t Tag,
                                  const ucp_request_param_t *P) {
  static SendFn Real;
  if (Real == NULL)
    Real = (SendFn)next("ucp_tag_send_nbx");
  count(Ep, N, P);
  return Real(Ep, Buf, N, Tag, P);
}

ucs_status_ptr_t ucp_tag_send_sync_nbx(ucp_ep_h Ep, const void *Buf, size_t N, ucp_tag_t Tag,
                                       const ucp_request_param_t *P) {
  static SendFn Real;
  if (Real == NULL)
    Real = (SendFn)next("ucp_tag_send_sync_nbx");
  count(Ep, N, P);
  return Real(Ep, Buf, N, Tag, P);
}
