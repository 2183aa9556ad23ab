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

/* UCX's generic datatype (src/ucp/dt/dt_generic.h, not installed): the datatype value is the
 * address of this pair with the class in its low bits. MPICH sends non-contiguous data so;
 * N is then a count of MPI elements, and only the pack state knows the bytes. */
typedef struct {
  void *Context;
  ucp_generic_dt_ops_t Ops;
} GenericDt;

static unsigned long long bytesOf(const void *Buf, size_t N, const ucp_request_param_t *P) {
  if (P == NULL || !(P->op_attr_mask & UCP_OP_ATTR_FIELD_DATATYPE))
    return N;
  switch (P->datatype & UCP_DATATYPE_CLASS_MASK) {
  case UCP_DATATYPE_CONTIG:
    return N * (P->datatype >> UCP_DATATYPE_SHIFT);
  case UCP_DATATYPE_IOV: {
    const ucp_dt_iov_t *Iov = (const ucp_dt_iov_t *)Buf;
    unsigned long long B = 0;
    for (size_t I = 0; I < N; ++I)
      B += Iov[I].length;
    return B;
  }
  case UCP_DATATYPE_GENERIC: {
    const GenericDt *G =
        (const GenericDt *)(P->datatype & ~(ucp_datatype_t)UCP_DATATYPE_CLASS_MASK);
    void *State = G->Ops.start_pack(G->Context, Buf, N);
    /* Not finished: MPICH's finish releases a datatype reference its start_pack did not
     * take (the send's own pack takes and releases its own); a small state leaks per send. */
    return G->Ops.packed_size(State);
  }
  default:
    return N;
  }
}

static void count(ucp_ep_h Ep, const void *Buf, size_t N, const ucp_request_param_t *P) {
  if (!Enabled)
    return;
  int R = 0;
  while (R < NEps && Eps[R] != Ep)
    ++R;
  if (R == NEps) {
    fprintf(stderr, "ucx_spy: a send on an endpoint MPI_Init did not create\n");
    return;
  }
  Msgs[R] += 1;
  Bytes[R] += bytesOf(Buf, N, P);
}

typedef ucs_status_ptr_t (*SendFn)(ucp_ep_h, const void *, size_t, ucp_tag_t,
                                   const ucp_request_param_t *);

ucs_status_ptr_t ucp_tag_send_nbx(ucp_ep_h Ep, const void *Buf, size_t N, ucp_tag_t Tag,
                                  const ucp_request_param_t *P) {
  static SendFn Real;
  if (Real == NULL)
    Real = (SendFn)next("ucp_tag_send_nbx");
  count(Ep, Buf, N, P);
  return Real(Ep, Buf, N, Tag, P);
}

ucs_status_ptr_t ucp_tag_send_sync_nbx(ucp_ep_h Ep, const void *Buf, size_t N, ucp_tag_t Tag,
                                       const ucp_request_param_t *P) {
  static SendFn Real;
  if (Real == NULL)
    Real = (SendFn)next("ucp_tag_send_sync_nbx");
  count(Ep, Buf, N, P);
  return Real(Ep, Buf, N, Tag, P);
}
