"""Attention-based deep multiple-instance learning (Ilse et al., 2018) as its reference code
writes it: bags of a variable number of instances, a gated attention A = w^T (tanh(V h) *
sigmoid(U h)) with F.softmax over the instances of one bag, the bag embedding torch.mm(A, H),
a Bernoulli bag likelihood with torch.clamp(Y_prob, 1e-5, 1 - 1e-5), Adam with weight decay and
betas (0.9, 0.999), one bag per step; the attention finds the positive instances."""
import minigenesis as torch
from minigenesis import nn
from minigenesis.nn import functional as F

torch.manual_seed(0)
D_IN = 6


def make_bag():
    n = int(torch.randint(4, 12, (1,)))
    x = torch.randn(n, D_IN)
    label = int(torch.rand(1) < 0.5)
    key = torch.zeros(n, dtype=torch.bool)
    if label:
        k = torch.randperm(n)[: max(1, n // 4)]
        x[k, 0] += 3.0
        key[k] = True
    return x, torch.tensor(float(label)), key


class GatedAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.L, self.D, self.K = 32, 16, 1
        self.feature_extractor = nn.Sequential(nn.Linear(D_IN, self.L), nn.ReLU())
        self.attention_V = nn.Sequential(nn.Linear(self.L, self.D), nn.Tanh())
        self.attention_U = nn.Sequential(nn.Linear(self.L, self.D), nn.Sigmoid())
        self.attention_weights = nn.Linear(self.D, self.K)
        self.classifier = nn.Sequential(nn.Linear(self.L * self.K, 1), nn.Sigmoid())

    def forward(self, x):
        H = self.feature_extractor(x)  # NxL
        A_V = self.attention_V(H)
        A_U = self.attention_U(H)
        A = self.attention_weights(A_V * A_U)  # NxK
        A = torch.transpose(A, 1, 0)  # KxN
        A = F.softmax(A, dim=1)
        M = torch.mm(A, H)  # KxL
        Y_prob = self.classifier(M)
        Y_hat = torch.ge(Y_prob, 0.5).float()
        return Y_prob, Y_hat, A

    def calculate_objective(self, X, Y):
        Y = Y.float()
        Y_prob, _, A = self.forward(X)
        Y_prob = torch.clamp(Y_prob, min=1e-5, max=1.0 - 1e-5)
        neg_log_likelihood = -1.0 * (Y * torch.log(Y_prob) + (1.0 - Y) * torch.log(1.0 - Y_prob))
        return neg_log_likelihood, A


train_bags = [make_bag() for _ in range(60)]
test_bags = [make_bag() for _ in range(80)]
model = GatedAttention()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3, betas=(0.9, 0.999), weight_decay=10e-5)
for epoch in range(8):
    model.train()
    train_loss = 0.0
    for data, bag_label, _ in train_bags:
        optimizer.zero_grad()
        loss, _ = model.calculate_objective(data, bag_label)
        train_loss += loss.data[0]
        loss.backward()
        optimizer.step()
    print(f"Epoch: {epoch}, Loss: {(train_loss / len(train_bags)).item():.4f}")

model.eval()
correct, key_mass = 0, []
with torch.no_grad():
    for data, bag_label, key in test_bags:
        _, predicted_label, attention_weights = model(data)
        correct += int(predicted_label.item() == bag_label.item())
        assert abs(attention_weights.sum().item() - 1) < 1e-5
        if bag_label == 1:
            key_mass.append(attention_weights[0, key].sum().item())
acc = correct / len(test_bags)
print(f"test accuracy {acc:.3f}, attention on key instances {sum(key_mass) / len(key_mass):.3f}")
assert acc > 0.7 and sum(key_mass) / len(key_mass) > 0.4  # uniform attention gives ~0.2
