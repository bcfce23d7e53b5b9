"""Dense linear algebra as numlir compositions: triangular solves, Cholesky, LU, QR, eigh, SVD.

Each factorization is a loop of rank-1 updates over the trailing two axes,
batched over the leading ones, built from numlir.numpy operations. Rows and
columns are selected by one-hot masks instead of dynamic slices, so the same
code runs eagerly, under jit, under vmap and under the derivative
transformations (docs/linear-algebra.md). One step of a factorization is
O(n^2) work, so the whole is O(n^3) for the direct methods and O(sweeps * n^4)
for the Jacobi eigensolvers: these are for the small and medium matrices of
research code, not for LAPACK-sized problems.
"""
