"""A scikit-learn-style estimator around an nn.Module, as skorch and many notebooks write it:
fit/predict/predict_proba/score, get_params/set_params, a clone by copy.deepcopy, an internal
validation split by random_split with a seeded Generator, and a small grid search over learning
rate and hidden size with k-fold cross-validation by index arithmetic. Data: three Gaussian blobs
from NumPy, passed in as NumPy arrays and returned as NumPy arrays."""
import copy
import itertools

import numpy as np

import minigenesis as torch
import minigenesis.nn as nn


class NeuralNetClassifier:
    def __init__(self, hidden=16, lr=0.01, max_epochs=30, batch_size=32, seed=0):
        self.hidden, self.lr, self.max_epochs, self.batch_size, self.seed = hidden, lr, max_epochs, batch_size, seed

    def get_params(self, deep=True):
        return {k: getattr(self, k) for k in ("hidden", "lr", "max_epochs", "batch_size", "seed")}

    def set_params(self, **params):
        for k, v in params.items():
            setattr(self, k, v)
        return self

    def fit(self, X, y):
        torch.manual_seed(self.seed)
        X, y = torch.as_tensor(X, dtype=torch.float32), torch.as_tensor(y, dtype=torch.long)
        self.classes_ = np.unique(y.numpy())
        self.module_ = nn.Sequential(nn.Linear(X.shape[1], self.hidden), nn.ReLU(), nn.Linear(self.hidden, len(self.classes_)))
        ds = torch.utils.data.TensorDataset(X, y)
        n_val = len(ds) // 5
        train, valid = torch.utils.data.random_split(ds, [len(ds) - n_val, n_val], generator=torch.Generator().manual_seed(self.seed))
        loader = torch.utils.data.DataLoader(train, batch_size=self.batch_size, shuffle=True)
        opt = torch.optim.Adam(self.module_.parameters(), lr=self.lr)
        self.history_ = []
        for _ in range(self.max_epochs):
            self.module_.train()
            for xb, yb in loader:
                opt.zero_grad()
                nn.functional.cross_entropy(self.module_(xb), yb).backward()
                opt.step()
            xv, yv = valid[:]
            with torch.no_grad():
                self.history_.append(nn.functional.cross_entropy(self.module_(xv), yv).item())
        return self

    def predict_proba(self, X):
        self.module_.eval()
        with torch.no_grad():
            return torch.softmax(self.module_(torch.as_tensor(X, dtype=torch.float32)), dim=1).numpy()

    def predict(self, X):
        return self.classes_[self.predict_proba(X).argmax(axis=1)]

    def score(self, X, y):
        return float((self.predict(X) == np.asarray(y)).mean())


def clone(est):
    return type(est)(**copy.deepcopy(est.get_params()))


def cross_val_score(est, X, y, cv=3):
    folds = np.array_split(np.random.default_rng(0).permutation(len(X)), cv)
    scores = []
    for i in range(cv):
        test = folds[i]
        train = np.concatenate([f for j, f in enumerate(folds) if j != i])
        scores.append(clone(est).fit(X[train], y[train]).score(X[test], y[test]))
    return np.array(scores)


rng = np.random.default_rng(5)
centers = np.array([[0, 0], [3, 1], [0, 3]])
y = rng.integers(0, 3, 450)
X = (centers[y] + rng.standard_normal((450, 2))).astype(np.float32)
X_train, y_train, X_test, y_test = X[:360], y[:360], X[360:], y[360:]

results = {}
for lr, hidden in itertools.product([0.001, 0.01], [4, 16]):
    est = NeuralNetClassifier(max_epochs=10).set_params(lr=lr, hidden=hidden)
    results[(lr, hidden)] = cross_val_score(est, X_train, y_train).mean()
    print("lr %.3f hidden %2d cv accuracy %.3f" % (lr, hidden, results[(lr, hidden)]))
best = max(results, key=results.get)
final = NeuralNetClassifier(lr=best[0], hidden=best[1]).fit(X_train, y_train)
proba = final.predict_proba(X_test)
assert proba.shape == (90, 3) and np.allclose(proba.sum(1), 1, atol=1e-5)
print("best", best, "test accuracy %.3f, val loss %.4f -> %.4f" % (final.score(X_test, y_test), final.history_[0], final.history_[-1]))
assert final.score(X_test, y_test) > 0.8 and isinstance(final.predict(X_test[:3]), np.ndarray)
