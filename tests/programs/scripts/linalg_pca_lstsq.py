"""Classical linear algebra the way data-science notebooks do it with torch.linalg: PCA by
torch.linalg.svd of the centred data (explained variance ratios, the same subspace as
torch.linalg.eigh of the covariance and as torch.pca_lowrank), least squares by
torch.linalg.lstsq, by the normal equations with torch.linalg.solve, by a Cholesky factor with
torch.cholesky_solve and by torch.linalg.pinv (all equal), ridge regression's closed form, QR
with torch.linalg.qr, slogdet, and a Mahalanobis distance; every result checked against NumPy in
float64."""
import numpy as np

import minigenesis as torch

torch.manual_seed(0)
n, d = 200, 5
latent = torch.randn(n, 2, dtype=torch.float64)
mixing = torch.randn(2, d, dtype=torch.float64)
X = latent @ mixing + 0.05 * torch.randn(n, d, dtype=torch.float64) + torch.arange(d, dtype=torch.float64)

Xc = X - X.mean(dim=0, keepdim=True)
U, S, Vh = torch.linalg.svd(Xc, full_matrices=False)
explained = S ** 2 / (S ** 2).sum()
print("explained variance ratio", [round(v, 4) for v in explained.tolist()])
assert explained[:2].sum() > 0.99
cov = torch.cov(X.T)
assert np.allclose(cov.numpy(), np.cov(X.numpy().T))
evals, evecs = torch.linalg.eigh(cov)
assert np.allclose(evals.flip(0).numpy(), (S ** 2 / (n - 1)).numpy())
proj_svd = Vh[:2].T @ Vh[:2]
proj_eig = evecs[:, -2:] @ evecs[:, -2:].T
assert torch.allclose(proj_svd, proj_eig, atol=1e-8)
scores = Xc @ Vh[:2].T
assert np.allclose(np.abs(scores.numpy()), np.abs((U[:, :2] * S[:2]).numpy()))
_, _, V_low = torch.pca_lowrank(X, q=2, center=True)
assert torch.allclose(V_low @ V_low.T, proj_svd, atol=1e-6)

w_true = torch.tensor([1.5, -2.0, 0.0, 0.5, 3.0], dtype=torch.float64)
A = torch.cat([torch.randn(n, d, dtype=torch.float64), torch.ones(n, 1, dtype=torch.float64)], dim=1)
y = A[:, :d] @ w_true + 0.7 + 0.01 * torch.randn(n, dtype=torch.float64)
w_lstsq = torch.linalg.lstsq(A, y.unsqueeze(1)).solution.squeeze(1)
AtA, Aty = A.T @ A, A.T @ y
w_normal = torch.linalg.solve(AtA, Aty)
L = torch.linalg.cholesky(AtA)
w_chol = torch.cholesky_solve(Aty.unsqueeze(1), L).squeeze(1)
w_pinv = torch.linalg.pinv(A) @ y
Q, R = torch.linalg.qr(A)
w_qr = torch.linalg.solve_triangular(R, (Q.T @ y).unsqueeze(1), upper=True).squeeze(1)
w_np = np.linalg.lstsq(A.numpy(), y.numpy(), rcond=None)[0]
for name, w in (("lstsq", w_lstsq), ("normal", w_normal), ("cholesky", w_chol), ("pinv", w_pinv), ("qr", w_qr)):
    assert np.allclose(w.numpy(), w_np, atol=1e-9), name
print("coefficients", [round(v, 4) for v in w_lstsq.tolist()])

lam = 10.0
w_ridge = torch.linalg.solve(AtA + lam * torch.eye(d + 1, dtype=torch.float64), Aty)
assert w_ridge.norm() < w_lstsq.norm()
assert np.allclose(w_ridge.numpy(), np.linalg.solve(AtA.numpy() + lam * np.eye(d + 1), Aty.numpy()))

sign, logdet = torch.linalg.slogdet(cov)
ref_sign, ref_logdet = np.linalg.slogdet(cov.numpy())
assert sign.item() == ref_sign and abs(logdet.item() - ref_logdet) < 1e-8
mu = X.mean(0)
diff = X[:3] - mu
maha = torch.sqrt((diff @ torch.linalg.inv(cov) * diff).sum(-1))
maha_np = np.sqrt(np.einsum("ij,jk,ik->i", diff.numpy(), np.linalg.inv(cov.numpy()), diff.numpy()))
assert np.allclose(maha.numpy(), maha_np)
print(f"ridge norm {w_ridge.norm().item():.4f} logdet {logdet.item():.4f} mahalanobis {[round(v, 3) for v in maha.tolist()]}")
