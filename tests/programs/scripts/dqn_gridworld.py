"""Deep Q-learning on a hand-written 1-d corridor: an epsilon-greedy policy, a replay buffer in a
collections.deque sampled with random.sample, a target network refreshed with
load_state_dict, Q(s, a) picked with gather, the TD target from max(1)[0] under no_grad,
SmoothL1Loss, and the learnt greedy policy walking to the goal."""
import random
from collections import deque, namedtuple

import minigenesis as torch
from minigenesis import nn
from minigenesis import optim

torch.manual_seed(0)
random.seed(0)
N = 6  # states 0..5, start at 0, goal at 5; actions 0 = left, 1 = right
Transition = namedtuple("Transition", ("state", "action", "next_state", "reward", "done"))


def one_hot(s):
    return torch.eye(N)[s]


def env_step(s, a):
    s2 = max(0, min(N - 1, s + (1 if a == 1 else -1)))
    done = s2 == N - 1
    return s2, (1.0 if done else -0.05), done


policy_net = nn.Sequential(nn.Linear(N, 32), nn.ReLU(), nn.Linear(32, 2))
target_net = nn.Sequential(nn.Linear(N, 32), nn.ReLU(), nn.Linear(32, 2))
target_net.load_state_dict(policy_net.state_dict())
optimizer = optim.Adam(policy_net.parameters(), lr=5e-3)
memory = deque([], maxlen=1000)
criterion = nn.SmoothL1Loss()
gamma = 0.9


def optimize_model(batch_size=32):
    if len(memory) < batch_size:
        return
    batch = Transition(*zip(*random.sample(memory, batch_size)))
    state = torch.stack(batch.state)
    action = torch.tensor(batch.action).unsqueeze(1)
    reward = torch.tensor(batch.reward)
    next_state = torch.stack(batch.next_state)
    done = torch.tensor(batch.done, dtype=torch.bool)
    q = policy_net(state).gather(1, action)
    with torch.no_grad():
        next_v = target_net(next_state).max(1)[0]
        next_v[done] = 0.0
    target = reward + gamma * next_v
    loss = criterion(q, target.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()


steps = 0
for episode in range(60):
    s = 0
    for t in range(30):
        eps = max(0.05, 0.9 * 0.97**episode)
        if random.random() < eps:
            a = random.randrange(2)
        else:
            with torch.no_grad():
                a = policy_net(one_hot(s)).argmax().item()
        s2, r, done = env_step(s, a)
        memory.append(Transition(one_hot(s), a, one_hot(s2), r, done))
        s = s2
        optimize_model()
        steps += 1
        if steps % 20 == 0:
            target_net.load_state_dict(policy_net.state_dict())
        if done:
            break

with torch.no_grad():
    q_all = policy_net(torch.eye(N))
greedy = q_all.argmax(dim=1)
s, path = 0, [0]
while s != N - 1 and len(path) < 20:
    s, _, _ = env_step(s, greedy[s].item())
    path.append(s)
print("greedy actions", greedy.tolist(), "path", path)
assert path[-1] == N - 1 and len(path) == N, path
# the values decay by gamma per step away from the goal (up to the step cost)
assert (q_all[:-1, 1][1:] > q_all[:-1, 1][:-1]).all()
