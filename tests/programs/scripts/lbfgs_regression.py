"""Cubic regression with nn.Linear on polynomial features, LBFGS with a strong-Wolfe closure."""
import minigenesis as torch

torch.manual_seed(0)
x = torch.linspace(-1, 1, 100).unsqueeze(1)
y = 3 * x ** 3 - 2 * x + 0.5 + 0.01 * torch.randn_like(x)
features = torch.cat([x, x ** 2, x ** 3], dim=1)
model = torch.nn.Linear(3, 1)
optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=50, line_search_fn="strong_wolfe")
loss_fn = torch.nn.MSELoss()

def closure():
    optimizer.zero_grad()
    loss = loss_fn(model(features), y)
    loss.backward()
    return loss

for i in range(5):
    loss = optimizer.step(closure)
print("loss", loss.item(), "weights", model.weight.data.numpy().round(2), model.bias.item())
assert loss.item() < 1e-3
