"""Three-class semantic segmentation (background, squares, crosses) with a small encoder-decoder:
skip connections joined by torch.cat after F.interpolate(mode='bilinear', align_corners=False)
upsampling, nn.Upsample in the head, CrossEntropyLoss on (N, C, H, W) logits and (N, H, W)
targets with class weights and ignore_index=255 on a border band, and the mean IoU read from a
confusion matrix built with torch.bincount."""
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F

torch.manual_seed(0)
device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
NUM_CLASSES, IGNORE, S = 3, 255, 16


def make_sample():
    img = 0.3 * torch.randn(1, S, S)
    mask = torch.zeros(S, S, dtype=torch.long)
    for cls in (1, 2):
        r, c = torch.randint(2, S - 6, (2,)).tolist()
        if cls == 1:
            img[0, r:r + 4, c:c + 4] += 1.0
            mask[r:r + 4, c:c + 4] = 1
        else:
            img[0, r + 1, c:c + 4] -= 1.0
            img[0, r:r + 4, c + 1] -= 1.0
            mask[r + 1, c:c + 4] = 2
            mask[r:r + 4, c + 1] = 2
    mask[0, :] = IGNORE  # an unlabelled border row
    return img, mask


def double_conv(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SegNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.inc = double_conv(1, 8)
        self.down1 = nn.Sequential(nn.MaxPool2d(2), double_conv(8, 16))
        self.down2 = nn.Sequential(nn.MaxPool2d(2), double_conv(16, 16))
        self.up1 = double_conv(32, 8)
        self.head = nn.Sequential(nn.Conv2d(16, n_classes, 1))
        self.up = nn.Upsample(scale_factor=2, mode='nearest')

    def forward(self, x):
        x1 = self.inc(x)          # 16x16
        x2 = self.down1(x1)       # 8x8
        x3 = self.down2(x2)       # 4x4
        x = F.interpolate(x3, size=x2.shape[-2:], mode='bilinear', align_corners=False)
        x = self.up1(torch.cat([x2, x], dim=1))
        x = self.up(x)
        return self.head(torch.cat([x1, x], dim=1))


def confusion_matrix(pred, target, n):
    k = target != IGNORE
    return torch.bincount(n * target[k] + pred[k], minlength=n ** 2).reshape(n, n)


samples = [make_sample() for _ in range(160)]
images = torch.stack([s[0] for s in samples])
masks = torch.stack([s[1] for s in samples])
train_x, train_y, val_x, val_y = images[:128], masks[:128], images[128:], masks[128:]

model = SegNet(NUM_CLASSES).to(device)
class_weights = torch.tensor([0.2, 1.0, 1.5], device=device)
criterion = nn.CrossEntropyLoss(weight=class_weights, ignore_index=IGNORE)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2, weight_decay=1e-4)
scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.9)

for epoch in range(6):
    model.train()
    perm = torch.randperm(128)
    total = 0.0
    for i in range(0, 128, 16):
        idx = perm[i:i + 16]
        x, y = train_x[idx].to(device), train_y[idx].to(device)
        logits = model(x)
        loss = criterion(logits, y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        total += loss.item() * x.size(0)
    scheduler.step()
    print(f"epoch {epoch}: loss {total / 128:.4f} lr {scheduler.get_last_lr()[0]:.5f}")

model.eval()
with torch.no_grad():
    logits = model(val_x.to(device))
    pred = logits.argmax(dim=1)
    cm = confusion_matrix(pred.flatten(), val_y.flatten(), NUM_CLASSES).double()
iou = cm.diag() / (cm.sum(0) + cm.sum(1) - cm.diag())
pixel_acc = (cm.diag().sum() / cm.sum()).item()
print("per-class IoU", [round(v, 3) for v in iou.tolist()], "mIoU %.3f pixel acc %.3f" % (iou.mean().item(), pixel_acc))
assert logits.shape == (32, NUM_CLASSES, S, S)
assert int(cm.sum().item()) == int((val_y != IGNORE).sum().item())
# the loss ignores the border: changing the logits there changes nothing
with torch.no_grad():
    altered = logits.clone()
    altered[:, :, 0, :] = torch.randn(32, NUM_CLASSES, S)
    assert torch.allclose(criterion(altered, val_y), criterion(logits, val_y))
assert iou.mean().item() > 0.5, iou
