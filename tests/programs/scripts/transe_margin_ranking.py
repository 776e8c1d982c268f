"""TransE knowledge-graph embeddings in the style of the popular mklimasz/TransE-PyTorch code:
entity and relation nn.Embeddings initialised uniformly in +-6/sqrt(dim), the relations
normalised once and the entities renormalised through .data before every batch, the L1 distance
|h + r - t| by torch.norm(p=1), corrupted triples by replacing head or tail, and
nn.MarginRankingLoss(margin) with target -1; evaluated by ranking every entity as the tail
(hits@1, hits@10, mean reciprocal rank) on a synthetic graph whose relations are translations."""
import numpy as np

import minigenesis as torch
import minigenesis.nn as nn

torch.manual_seed(0)
rng = np.random.default_rng(0)


class TransE(nn.Module):
    def __init__(self, entity_count, relation_count, dim=20, margin=1.0, norm=1):
        super(TransE, self).__init__()
        self.entity_count = entity_count
        self.relation_count = relation_count
        self.norm = norm
        self.dim = dim
        self.entities_emb = self._init_enitity_emb()
        self.relations_emb = self._init_relation_emb()
        self.criterion = nn.MarginRankingLoss(margin=margin, reduction='none')

    def _init_enitity_emb(self):
        entities_emb = nn.Embedding(num_embeddings=self.entity_count + 1, embedding_dim=self.dim,
                                    padding_idx=self.entity_count)
        uniform_range = 6 / np.sqrt(self.dim)
        entities_emb.weight.data.uniform_(-uniform_range, uniform_range)
        return entities_emb

    def _init_relation_emb(self):
        relations_emb = nn.Embedding(num_embeddings=self.relation_count + 1, embedding_dim=self.dim,
                                     padding_idx=self.relation_count)
        uniform_range = 6 / np.sqrt(self.dim)
        relations_emb.weight.data.uniform_(-uniform_range, uniform_range)
        # -1 to avoid nan for OOV vector
        relations_emb.weight.data[:-1, :].div_(relations_emb.weight.data[:-1, :].norm(p=1, dim=1, keepdim=True))
        return relations_emb

    def forward(self, positive_triplets: torch.LongTensor, negative_triplets: torch.LongTensor):
        # -1 to avoid nan for OOV vector
        self.entities_emb.weight.data[:-1, :].div_(self.entities_emb.weight.data[:-1, :].norm(p=2, dim=1, keepdim=True))
        assert positive_triplets.size()[1] == 3
        positive_distances = self._distance(positive_triplets)
        assert negative_triplets.size()[1] == 3
        negative_distances = self._distance(negative_triplets)
        return self.loss(positive_distances, negative_distances), positive_distances, negative_distances

    def predict(self, triplets: torch.LongTensor):
        return self._distance(triplets)

    def loss(self, positive_distances, negative_distances):
        target = torch.tensor([-1], dtype=torch.long)
        return self.criterion(positive_distances, negative_distances, target)

    def _distance(self, triplets):
        assert triplets.size()[1] == 3
        heads = triplets[:, 0]
        relations = triplets[:, 1]
        tails = triplets[:, 2]
        return (self.entities_emb(heads) + self.relations_emb(relations) - self.entities_emb(tails)).norm(p=self.norm, dim=1)


# a graph whose entities sit on a 2-d lattice and relations move them: right, up, diagonal
side = 7
n_entities = side * side
moves = [(1, 0), (0, 1), (1, 1), (2, 0)]
triples = []
for i in range(side):
    for j in range(side):
        for r, (di, dj) in enumerate(moves):
            if i + di < side and j + dj < side:
                triples.append((i * side + j, r, (i + di) * side + (j + dj)))
triples = torch.tensor(triples)
print(f"{n_entities} entities, {len(moves)} relations, {len(triples)} triples")

model = TransE(n_entities, len(moves), dim=16, margin=1.0)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(100):
    perm = torch.randperm(len(triples))
    total = 0.0
    for start in range(0, len(triples), 64):
        positive = triples[perm[start:start + 64]]
        # corrupt head or tail with a random entity
        head_or_tail = torch.randint(high=2, size=(len(positive),))
        random_entities = torch.randint(high=n_entities, size=(len(positive),))
        broken_heads = torch.where(head_or_tail == 1, random_entities, positive[:, 0])
        broken_tails = torch.where(head_or_tail == 0, random_entities, positive[:, 2])
        negative = torch.stack((broken_heads, positive[:, 1], broken_tails), dim=1)
        optimizer.zero_grad()
        loss, pd, nd = model(positive, negative)
        loss.mean().backward()
        optimizer.step()
        total += loss.sum().item()
    if epoch % 25 == 0:
        print(f"epoch {epoch}  loss {total / len(triples):.4f}")

# rank every entity as the tail of each triple
with torch.no_grad():
    h = model.entities_emb(triples[:, 0]) + model.relations_emb(triples[:, 1])
    all_e = model.entities_emb.weight[:-1]
    dist = torch.cdist(h, all_e, p=1)  # (triples, entities)
    true_d = dist.gather(1, triples[:, 2:3])
    # each (head, relation) has one tail here, so the raw and the filtered ranks agree
    rank = (dist < true_d).sum(dim=1) + 1
hits1 = (rank <= 1).float().mean().item()
hits10 = (rank <= 10).float().mean().item()
mrr = (1.0 / rank.float()).mean().item()
print(f"hits@1 {hits1:.3f}  hits@10 {hits10:.3f}  MRR {mrr:.3f}")
assert torch.allclose(model.entities_emb.weight[:-1].norm(dim=1), torch.ones(n_entities), atol=0.2)
assert hits10 > 0.8 and mrr > 0.3
