"""A tiny AlphaZero for tic-tac-toe in the style of the alpha-zero-general tutorials: a policy and
value network (shared trunk, log_softmax policy head with illegal moves masked by masked_fill,
tanh value head), Monte Carlo tree search with the PUCT rule guided by the network under
torch.no_grad(), self-play games recording (board, visit-count policy, outcome), and training on
-sum(pi log p) + (z - v)^2. Search alone (even with the untrained network) takes a winning move
and blocks a loss; training lowers the loss on the self-play data, and the trained network still
guides search to the win."""
import copy
import math
import random

import numpy as np

import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)
LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def winner(board):
    for a, b, c in LINES:
        if board[a] != 0 and board[a] == board[b] == board[c]:
            return board[a]
    return 0


def legal(board):
    return [i for i in range(9) if board[i] == 0]


def canonical(board, player):
    return [v * player for v in board]  # the side to move is always +1


class PVNet(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(18, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.pi = nn.Linear(hidden, 9)
        self.v = nn.Linear(hidden, 1)

    def forward(self, boards):  # boards: (N, 9) in {-1, 0, 1}, +1 to move
        x = torch.cat([(boards == 1).float(), (boards == -1).float()], dim=1)
        h = self.trunk(x)
        logits = self.pi(h).masked_fill(boards != 0, float("-inf"))
        return F.log_softmax(logits, dim=1), torch.tanh(self.v(h))


class MCTS:
    def __init__(self, net, sims=25, c_puct=1.5):
        self.net, self.sims, self.c_puct = net, sims, c_puct
        self.Q, self.N, self.P = {}, {}, {}

    def policy(self, board, temp=1.0):
        for _ in range(self.sims):
            self.search(list(board))
        s = tuple(board)
        counts = np.array([self.N.get((s, a), 0) for a in range(9)], dtype=np.float64)
        if temp == 0:
            pi = np.zeros(9)
            pi[int(counts.argmax())] = 1
            return pi
        counts = counts ** (1 / temp)
        return counts / counts.sum()

    def search(self, board):
        """Value of the board for the side to move (+1)."""
        w = winner(board)
        if w != 0:
            return -1.0  # the previous move won
        if not legal(board):
            return 0.0
        s = tuple(board)
        if s not in self.P:
            with torch.no_grad():
                logp, v = self.net(torch.tensor([board], dtype=torch.float32))
            self.P[s] = logp.exp()[0].numpy()
            self.N[s] = 0
            return v.item()
        best, best_u = None, -float("inf")
        for a in legal(board):
            q = self.Q.get((s, a), 0.0)
            n = self.N.get((s, a), 0)
            u = q + self.c_puct * self.P[s][a] * math.sqrt(self.N[s] + 1e-8) / (1 + n)
            if u > best_u:
                best, best_u = a, u
        a = best
        child = list(board)
        child[a] = 1
        v = -self.search([-x for x in child])
        n = self.N.get((s, a), 0)
        self.Q[(s, a)] = (n * self.Q.get((s, a), 0.0) + v) / (n + 1)
        self.N[(s, a)] = n + 1
        self.N[s] += 1
        return v


net = PVNet()
# search finds the win (X to move: 0 and 1 taken, 2 wins) and the block (O threatens 3-4-5)
win_board = [1, 1, 0, -1, -1, 0, 0, 0, 0]
assert np.argmax(MCTS(net, sims=60).policy(win_board, temp=0)) == 2
block_board = [1, 0, 0, -1, -1, 0, 1, 0, 0]
assert np.argmax(MCTS(net, sims=200).policy(block_board, temp=0)) == 5


def self_play(net):
    mcts = MCTS(net)
    board, player, history = [0] * 9, 1, []
    while True:
        cb = canonical(board, player)
        pi = mcts.policy(cb, temp=1.0 if len(history) < 4 else 0.3)
        history.append((cb, pi, player))
        a = np.random.choice(9, p=pi)
        board[a] = player
        w = winner(board)
        if w != 0 or not legal(board):
            return [(b, p, float(w * pl)) for b, p, pl in history]
        player = -player


initial = copy.deepcopy(net)
optimizer = torch.optim.Adam(net.parameters(), lr=3e-3, weight_decay=1e-4)
examples = []
for iteration in range(3):
    for _ in range(6):
        examples += self_play(net)
    boards = torch.tensor([e[0] for e in examples], dtype=torch.float32)
    target_pis = torch.tensor(np.array([e[1] for e in examples]), dtype=torch.float32)
    target_vs = torch.tensor([e[2] for e in examples], dtype=torch.float32)
    for epoch in range(30):
        log_pi, v = net(boards)
        loss_pi = -torch.sum(target_pis * log_pi.masked_fill(boards != 0, 0)) / target_pis.size()[0]
        loss_v = torch.sum((target_vs - v.view(-1)) ** 2) / target_vs.size()[0]
        total = loss_pi + loss_v
        optimizer.zero_grad()
        total.backward()
        optimizer.step()
    print(f"iteration {iteration}: {len(examples)} examples, loss_pi {loss_pi.item():.3f}, loss_v {loss_v.item():.3f}")



def loss_on(model, boards, target_pis, target_vs):
    with torch.no_grad():
        log_pi, v = model(boards)
        return (-torch.sum(target_pis * log_pi.masked_fill(boards != 0, 0)) / len(boards)
                + torch.mean((target_vs - v.view(-1)) ** 2)).item()


trained, untrained = loss_on(net, boards, target_pis, target_vs), loss_on(initial, boards, target_pis, target_vs)
print(f"loss on all self-play examples: trained {trained:.3f}, initial network {untrained:.3f}")
assert trained < untrained
# the trained network still guides search to the immediate win
assert np.argmax(MCTS(net, sims=60).policy(win_board, temp=0)) == 2
