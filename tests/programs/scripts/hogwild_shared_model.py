"""Hogwild training in the style of pytorch/examples' mnist_hogwild: one model moved to shared
memory with model.share_memory(), several torch.multiprocessing.Process workers each training it
on their own shard with their own optimizer and seed, writing into the same parameters without
locks; the parent sees their updates after join() and reports the test loss it reached.
Workers send their last loss back through a torch.multiprocessing.Queue."""
import minigenesis as torch
import minigenesis.multiprocessing as mp
import minigenesis.nn as nn
import minigenesis.nn.functional as F


def make_data(seed, n=256):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 8, generator=g)
    y = x @ torch.arange(1.0, 9.0) / 8 + 0.05 * torch.randn(n, generator=g)
    return x, y


def train(rank, model, queue, epochs=20):
    torch.manual_seed(1 + rank)
    x, y = make_data(10 + rank)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=32, shuffle=True, num_workers=0)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.5)
    for epoch in range(epochs):
        for data, target in loader:
            optimizer.zero_grad()
            loss = F.mse_loss(model(data).squeeze(1), target)
            loss.backward()
            optimizer.step()
    queue.put((rank, loss.item()))


if __name__ == "__main__":
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    model.share_memory()
    x_test, y_test = make_data(99)
    with torch.no_grad():
        before = F.mse_loss(model(x_test).squeeze(1), y_test).item()
    queue = mp.Queue()
    processes = []
    for rank in range(2):
        p = mp.Process(target=train, args=(rank, model, queue))
        p.start()
        processes.append(p)
    results = sorted(queue.get(timeout=120) for _ in processes)
    for p in processes:
        p.join()
    assert all(p.exitcode == 0 for p in processes)
    with torch.no_grad():
        after = F.mse_loss(model(x_test).squeeze(1), y_test).item()
    for rank, loss in results:
        print("worker %d last batch loss %.5f" % (rank, loss))
    print("shared model test loss %.5f -> %.5f" % (before, after))
    assert after < 0.1 * before
