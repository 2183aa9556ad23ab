c     f77-cg: conjugate gradients for the 5-point Laplacian on an n x n
c     grid (zero boundary, unit right-hand side). Its dot products are
c     reduced by hand (MPI_SEND, MPI_IRECV, MPI_WAIT) in rank order.
c     usage: f77-cg [n [maxiter]]   (defaults 40 and 400)
c     TP_TIMING set: rank 0's MPI_Init..MPI_Finalize time on stderr.
      program cg
      implicit none
      include 'mpif.h'
      include 'cg.inc'
      double precision x(maxw), r(maxw), p(maxw), q(maxw)
      double precision tol, rho, rho0, alpha, beta, pq, bnorm, xsum
      integer maxit, it, ierr, nargs, base, extra, nown
      character*32 arg
      double precision t0, t1
      integer tpst

      call mpi_init(ierr)
      t0 = mpi_wtime()
      call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
      call mpi_comm_size(MPI_COMM_WORLD, nproc, ierr)
      n = 40
      maxit = 400
      tol = 1.0d-8
      nargs = command_argument_count()
      if (nargs .ge. 1) then
        call get_command_argument(1, arg)
        read(arg, *) n
      end if
      if (nargs .ge. 2) then
        call get_command_argument(2, arg)
        read(arg, *) maxit
      end if
      base = n / nproc
      extra = mod(n, nproc)
      nloc = base
      if (rank .lt. extra) nloc = base + 1
      j0 = rank * base + min(rank, extra)
      up = rank - 1
      down = rank + 1
      if (rank .eq. 0) up = MPI_PROC_NULL
      if (rank .eq. nproc - 1) down = MPI_PROC_NULL
      if (n .lt. nproc .or. n * (nloc + 2) .gt. maxw) then
        if (rank .eq. 0) print '(A,I0)', 'f77-cg: unsupported n=', n
        call mpi_finalize(ierr)
        stop
      end if
      nown = n * nloc
      if (rank .eq. 0) print '(A,I0,A,I0,A,I0,A)', 'f77-cg: grid ', n,
     &  ' x ', n, ' (', n * n, ' unknowns)'

c     x = 0, r = p = b = 1.
      call fill(x, nown, 0.0d0)
      call fill(r, nown, 1.0d0)
      call fill(p, n * (nloc + 2), 0.0d0)
      call copy(r, p(n + 1), nown)
      call dot(r, r, nown, rho)
      bnorm = sqrt(rho)
      rho0 = rho
      it = 0
   10 continue
      if (it .ge. maxit .or. sqrt(rho) .le. tol * bnorm) goto 20
      it = it + 1
      call matvec(p, q)
      call dot(p(n + 1), q, nown, pq)
      alpha = rho / pq
      call axpy(alpha, p(n + 1), x, nown)
      call axpy(-alpha, q, r, nown)
      rho0 = rho
      call dot(r, r, nown, rho)
      beta = rho / rho0
      call xpay(r, beta, p(n + 1), nown)
      goto 10
   20 continue

      call dot(x, x, nown, xsum)
      if (rank .eq. 0) then
        print '(A,I0)', 'iterations: ', it
        if (sqrt(rho) .le. tol * bnorm) then
          print '(A)', 'converged: yes'
        else
          print '(A)', 'converged: no'
        end if
        print '(A,F12.6)', 'solution norm: ', sqrt(xsum)
      end if
      t1 = mpi_wtime()
      call get_environment_variable('TP_TIMING', status=tpst)
      if (rank .eq. 0 .and. tpst .eq. 0) write(0, '(A,F0.6,A)')
     &  'f77-cg: elapsed ', t1 - t0, ' s'
      call mpi_finalize(ierr)
      end
