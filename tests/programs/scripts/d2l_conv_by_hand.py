"""d2l.ai's convolution chapter by hand: corr2d with a double loop, a Conv2D module on it learning
the edge kernel [1, -1] from data, corr2d_multi_in (sum over zip of channels),
corr2d_multi_in_out (torch.stack over output kernels), the 1x1 convolution as a matmul, pool2d
with 'max' and 'avg' modes, padding and stride shapes; each compared with F.conv2d, nn.Conv2d,
nn.MaxPool2d and nn.AvgPool2d."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)


def corr2d(X, K):
    h, w = K.shape
    Y = torch.zeros((X.shape[0] - h + 1, X.shape[1] - w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            Y[i, j] = (X[i:i + h, j:j + w] * K).sum()
    return Y


X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
K = torch.tensor([[0.0, 1.0], [2.0, 3.0]])
assert torch.equal(corr2d(X, K), torch.tensor([[19.0, 25.0], [37.0, 43.0]]))


class Conv2D(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.weight = nn.Parameter(torch.rand(kernel_size))
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return corr2d(x, self.weight) + self.bias


X = torch.ones((6, 8))
X[:, 2:6] = 0
K = torch.tensor([[1.0, -1.0]])
Y = corr2d(X, K)
assert Y[:, 1].eq(1).all() and Y[:, 5].eq(-1).all() and Y.abs().sum() == 12
assert corr2d(X.t(), K).abs().sum() == 0

# learn the kernel (the nn.Conv2d way, as in the book)
conv2d = nn.Conv2d(1, 1, kernel_size=(1, 2), bias=False)
X4 = X.reshape((1, 1, 6, 8))
Y4 = Y.reshape((1, 1, 6, 7))
lr = 3e-2
for i in range(10):
    Y_hat = conv2d(X4)
    l = (Y_hat - Y4) ** 2
    conv2d.zero_grad()
    l.sum().backward()
    conv2d.weight.data[:] -= lr * conv2d.weight.grad
    if (i + 1) % 2 == 0:
        print(f"epoch {i + 1}, loss {l.sum():.3f}")
print(conv2d.weight.data.reshape((1, 2)))
assert torch.allclose(conv2d.weight.data.reshape((1, 2)), K, atol=0.1)

# the hand-written module learns it too
mine = Conv2D(kernel_size=(1, 2))
for i in range(100):
    l = ((mine(X) - Y) ** 2).sum()
    mine.zero_grad()
    l.backward()
    with torch.no_grad():
        for p in mine.parameters():
            p -= 1e-2 * p.grad
assert torch.allclose(mine.weight.data, K, atol=0.05), mine.weight


def corr2d_multi_in(X, K):
    return sum(corr2d(x, k) for x, k in zip(X, K))


def corr2d_multi_in_out(X, K):
    return torch.stack([corr2d_multi_in(X, k) for k in K], 0)


def corr2d_multi_in_out_1x1(X, K):
    c_i, h, w = X.shape
    c_o = K.shape[0]
    X = X.reshape((c_i, h * w))
    K = K.reshape((c_o, c_i))
    Y = torch.matmul(K, X)
    return Y.reshape((c_o, h, w))


X = torch.tensor([[[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]],
                  [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]])
K = torch.tensor([[[0.0, 1.0], [2.0, 3.0]], [[1.0, 2.0], [3.0, 4.0]]])
assert torch.equal(corr2d_multi_in(X, K), torch.tensor([[56.0, 72.0], [104.0, 120.0]]))
K = torch.stack((K, K + 1, K + 2), 0)
assert K.shape == (3, 2, 2, 2)
Y = corr2d_multi_in_out(X, K)
assert torch.allclose(Y, F.conv2d(X.unsqueeze(0), K).squeeze(0))

X = torch.normal(0, 1, (3, 3, 3))
K = torch.normal(0, 1, (2, 3, 1, 1))
Y1 = corr2d_multi_in_out_1x1(X, K)
Y2 = corr2d_multi_in_out(X, K)
assert float(torch.abs(Y1 - Y2).sum()) < 1e-5

# padding and stride shapes
def comp_conv2d(conv2d, X):
    X = X.reshape((1, 1) + X.shape)
    Y = conv2d(X)
    return Y.reshape(Y.shape[2:])

X = torch.rand(size=(8, 8))
assert comp_conv2d(nn.Conv2d(1, 1, kernel_size=3, padding=1), X).shape == (8, 8)
assert comp_conv2d(nn.Conv2d(1, 1, kernel_size=(5, 3), padding=(2, 1)), X).shape == (8, 8)
assert comp_conv2d(nn.Conv2d(1, 1, kernel_size=3, padding=1, stride=2), X).shape == (4, 4)
assert comp_conv2d(nn.Conv2d(1, 1, kernel_size=(3, 5), padding=(0, 1), stride=(3, 4)), X).shape == (2, 2)


def pool2d(X, pool_size, mode="max"):
    p_h, p_w = pool_size
    Y = torch.zeros((X.shape[0] - p_h + 1, X.shape[1] - p_w + 1))
    for i in range(Y.shape[0]):
        for j in range(Y.shape[1]):
            if mode == "max":
                Y[i, j] = X[i: i + p_h, j: j + p_w].max()
            elif mode == "avg":
                Y[i, j] = X[i: i + p_h, j: j + p_w].mean()
    return Y


X = torch.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
assert torch.equal(pool2d(X, (2, 2)), torch.tensor([[4.0, 5.0], [7.0, 8.0]]))
assert torch.equal(pool2d(X, (2, 2), "avg"), torch.tensor([[2.0, 3.0], [5.0, 6.0]]))
X = torch.randn(7, 9)
assert torch.allclose(pool2d(X, (3, 2)), nn.MaxPool2d((3, 2), stride=1)(X[None, None])[0, 0])
assert torch.allclose(pool2d(X, (3, 2), "avg"), nn.AvgPool2d((3, 2), stride=1)(X[None, None])[0, 0], atol=1e-6)

X = torch.arange(16, dtype=torch.float32).reshape((1, 1, 4, 4))
assert torch.equal(nn.MaxPool2d(3)(X), torch.tensor([[[[10.0]]]]))
assert torch.equal(nn.MaxPool2d(3, padding=1, stride=2)(X), torch.tensor([[[[5.0, 7.0], [13.0, 15.0]]]]))
assert torch.equal(nn.MaxPool2d((2, 3), stride=(2, 3), padding=(0, 1))(X), torch.tensor([[[[5.0, 7.0], [13.0, 15.0]]]]))
X = torch.cat((X, X + 1), 1)
out = nn.MaxPool2d(3, padding=1, stride=2)(X)
assert out.shape == (1, 2, 2, 2) and torch.equal(out[:, 1], out[:, 0] + 1)
print("pooled", out.flatten().tolist())
