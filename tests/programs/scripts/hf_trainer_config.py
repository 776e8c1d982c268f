"""The training loop of a Hugging Face-style script, written out by hand: a TrainingArguments
dataclass, AdamW with the usual "no weight decay for biases and LayerNorm weights" parameter
groups, get_linear_schedule_with_warmup as a LambdaLR, gradient accumulation with the loss divided
by the number of accumulation steps, clip_grad_norm_ before each optimizer step, and a tiny
encoder classifier that takes input_ids and an attention_mask and returns a dict with "loss" and
"logits". The task: does the sequence contain token 7?"""
from dataclasses import dataclass, field

import minigenesis as torch
import minigenesis.nn as nn


@dataclass
class TrainingArguments:
    learning_rate: float = 3e-3
    weight_decay: float = 0.01
    per_device_train_batch_size: int = 8
    gradient_accumulation_steps: int = 4
    num_train_epochs: int = 6
    warmup_ratio: float = 0.1
    max_grad_norm: float = 1.0
    seed: int = 42
    log_history: list = field(default_factory=list)


class TinyEncoderForSequenceClassification(nn.Module):
    def __init__(self, vocab_size=12, d_model=32, num_labels=2):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, d_model, padding_idx=0)
        layer = nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1, enable_nested_tensor=False)
        self.LayerNorm = nn.LayerNorm(d_model)
        self.classifier = nn.Linear(d_model, num_labels)

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.encoder(self.embeddings(input_ids), src_key_padding_mask=attention_mask == 0)
        mask = attention_mask.unsqueeze(-1).to(h.dtype)
        pooled = self.LayerNorm((h * mask).sum(1) / mask.sum(1))
        logits = self.classifier(pooled)
        out = {"logits": logits}
        if labels is not None:
            out["loss"] = nn.functional.cross_entropy(logits, labels)
        return out


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    def lr_lambda(step):
        if step < num_warmup_steps:
            return float(step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - step) / float(max(1, num_training_steps - num_warmup_steps)))

    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


args = TrainingArguments()
torch.manual_seed(args.seed)
n = 256
lengths = torch.randint(3, 9, (n,))
input_ids = torch.randint(1, 12, (n, 8))
attention_mask = (torch.arange(8)[None, :] < lengths[:, None]).long()
input_ids = input_ids * attention_mask
labels = ((input_ids == 7).sum(1) > 0).long()
dataset = torch.utils.data.TensorDataset(input_ids, attention_mask, labels)
loader = torch.utils.data.DataLoader(dataset, batch_size=args.per_device_train_batch_size, shuffle=True)

model = TinyEncoderForSequenceClassification()
no_decay = ["bias", "LayerNorm.weight"]
grouped = [
    {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": args.weight_decay},
    {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
]
optimizer = torch.optim.AdamW(grouped, lr=args.learning_rate)
total_steps = len(loader) // args.gradient_accumulation_steps * args.num_train_epochs
scheduler = get_linear_schedule_with_warmup(optimizer, int(args.warmup_ratio * total_steps), total_steps)

global_step = 0
model.train()
for epoch in range(args.num_train_epochs):
    running = 0.0
    for step, (ids, mask, y) in enumerate(loader):
        loss = model(input_ids=ids, attention_mask=mask, labels=y)["loss"]
        (loss / args.gradient_accumulation_steps).backward()
        running += loss.item()
        if (step + 1) % args.gradient_accumulation_steps == 0:
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
            global_step += 1
    args.log_history.append({"epoch": epoch, "loss": running / len(loader), "grad_norm": float(grad_norm),
                             "learning_rate": scheduler.get_last_lr()[0]})

model.eval()
with torch.no_grad():
    acc = (model(input_ids, attention_mask)["logits"].argmax(-1) == labels).float().mean().item()
for row in args.log_history[::2]:
    print("epoch %d loss %.4f lr %.6f" % (row["epoch"], row["loss"], row["learning_rate"]))
print("global steps %d, train accuracy %.3f" % (global_step, acc))
assert global_step == total_steps and args.log_history[-1]["learning_rate"] == 0.0
assert args.log_history[-1]["loss"] < args.log_history[0]["loss"] and acc > 0.85
