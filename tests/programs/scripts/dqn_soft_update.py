"""The "Reinforcement Learning (DQN)" tutorial's machinery on a tiny chain environment (no gym):
Transition as a namedtuple, ReplayMemory over deque(maxlen=...), select_action with an
exponentially decaying epsilon, optimize_model batching with Transition(*zip(*transitions)),
a non_final_mask from map(lambda s: s is not None, ...), next-state values by the target net
under no_grad with .max(1).values, SmoothL1Loss, clip_grad_value_(100), AdamW(amsgrad=True), and
the soft update target = TAU * policy + (1 - TAU) * target through state_dict(); the greedy policy
walks right to the goal and the soft update matches its closed form."""
import math
import random
from collections import deque, namedtuple

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim

random.seed(0)
torch.manual_seed(0)
device = torch.device("cpu")
Transition = namedtuple("Transition", ("state", "action", "next_state", "reward"))


class ReplayMemory(object):
    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)

    def push(self, *args):
        self.memory.append(Transition(*args))

    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)

    def __len__(self):
        return len(self.memory)


class Chain:
    """States 0..N-1 (one-hot), actions left/right; reward 1 on reaching N-1, -0.01 per step."""

    def __init__(self, n=6):
        self.n = n

    def reset(self):
        self.pos = 0
        return self._obs()

    def _obs(self):
        return [1.0 if i == self.pos else 0.0 for i in range(self.n)]

    def step(self, action):
        self.pos = max(0, self.pos - 1) if action == 0 else min(self.n - 1, self.pos + 1)
        terminated = self.pos == self.n - 1
        return self._obs(), (1.0 if terminated else -0.01), terminated


class DQN(nn.Module):
    def __init__(self, n_observations, n_actions):
        super(DQN, self).__init__()
        self.layer1 = nn.Linear(n_observations, 32)
        self.layer2 = nn.Linear(32, 32)
        self.layer3 = nn.Linear(32, n_actions)

    def forward(self, x):
        x = F.relu(self.layer1(x))
        x = F.relu(self.layer2(x))
        return self.layer3(x)


BATCH_SIZE, GAMMA, EPS_START, EPS_END, EPS_DECAY, TAU, LR = 32, 0.9, 0.9, 0.05, 200, 0.05, 3e-3
env = Chain()
n_actions, n_observations = 2, env.n
policy_net = DQN(n_observations, n_actions).to(device)
target_net = DQN(n_observations, n_actions).to(device)
target_net.load_state_dict(policy_net.state_dict())
optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
memory = ReplayMemory(2000)
steps_done = 0


def select_action(state):
    global steps_done
    sample = random.random()
    eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1.0 * steps_done / EPS_DECAY)
    steps_done += 1
    if sample > eps_threshold:
        with torch.no_grad():
            return policy_net(state).max(1).indices.view(1, 1)
    return torch.tensor([[random.randrange(n_actions)]], device=device, dtype=torch.long)


def optimize_model():
    if len(memory) < BATCH_SIZE:
        return
    transitions = memory.sample(BATCH_SIZE)
    batch = Transition(*zip(*transitions))
    non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), device=device, dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)
    state_action_values = policy_net(state_batch).gather(1, action_batch)
    next_state_values = torch.zeros(BATCH_SIZE, device=device)
    with torch.no_grad():
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch
    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()


for i_episode in range(40):
    state = torch.tensor(env.reset(), dtype=torch.float32, device=device).unsqueeze(0)
    for t in range(30):
        action = select_action(state)
        observation, reward, terminated = env.step(action.item())
        reward = torch.tensor([reward], device=device)
        next_state = None if terminated else torch.tensor(observation, dtype=torch.float32, device=device).unsqueeze(0)
        memory.push(state, action, next_state, reward)
        state = next_state
        optimize_model()
        target_net_state_dict = target_net.state_dict()
        policy_net_state_dict = policy_net.state_dict()
        before = {k: v.clone() for k, v in target_net_state_dict.items()}
        for key in policy_net_state_dict:
            target_net_state_dict[key] = policy_net_state_dict[key] * TAU + target_net_state_dict[key] * (1 - TAU)
        target_net.load_state_dict(target_net_state_dict)
        if terminated:
            break

key = "layer1.weight"
assert torch.allclose(target_net.state_dict()[key], TAU * policy_net.state_dict()[key] + (1 - TAU) * before[key])
# the greedy policy goes right from every non-terminal state
with torch.no_grad():
    states = torch.eye(env.n)[:-1]
    greedy = policy_net(states).argmax(1)
    q = policy_net(states)
print("greedy actions:", greedy.tolist(), "Q(0) =", [round(v, 3) for v in q[0].tolist()])
assert greedy.tolist() == [1] * (env.n - 1)
state, steps = env.reset(), 0
done = False
while not done and steps < 20:
    with torch.no_grad():
        a = policy_net(torch.tensor(state).unsqueeze(0)).argmax(1).item()
    state, _, done = env.step(a)
    steps += 1
assert done and steps == env.n - 1
