"""Neural style transfer in the tutorial's structure, on a small fixed random CNN instead of VGG:
a Normalization module with mean/std viewed as (-1, 1, 1), ContentLoss and StyleLoss modules
inserted after chosen convs as transparent layers (target.detach(), Gram matrices from
features.view(a * b, c * d) / numel), the model rebuilt layer by layer with isinstance checks
and nn.ReLU(inplace=False), then trimmed after the last loss; the input image optimized with
LBFGS([input_img.requires_grad_()]) and a closure that clamps it under torch.no_grad()."""
import numpy as np
import minigenesis as torch
import minigenesis.nn as nn
import minigenesis.nn.functional as F
import minigenesis.optim as optim

torch.manual_seed(0)
device = torch.device("cpu")
torch.set_default_device(device)
imsize = 16
# a "style" of diagonal stripes and a "content" image of a bright square
ii, jj = torch.meshgrid(torch.arange(imsize), torch.arange(imsize), indexing="ij")
stripes = ((ii + jj) % 4 < 2).float()
style_img = torch.stack([stripes, 1 - stripes, 0.5 * stripes]).unsqueeze(0)
content_img = torch.zeros(1, 3, imsize, imsize)
content_img[:, :, 4:12, 4:12] = 0.8
assert style_img.size() == content_img.size(), "we need to import style and content images of the same size"


class ContentLoss(nn.Module):
    def __init__(self, target):
        super(ContentLoss, self).__init__()
        self.target = target.detach()

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


def gram_matrix(input):
    a, b, c, d = input.size()
    features = input.view(a * b, c * d)
    G = torch.mm(features, features.t())
    return G.div(a * b * c * d)


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super(StyleLoss, self).__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        G = gram_matrix(input)
        self.loss = F.mse_loss(G, self.target)
        return input


# the Gram matrix against NumPy
f = torch.randn(1, 4, 3, 5)
fn = f.numpy().reshape(4, 15)
assert torch.allclose(gram_matrix(f), torch.from_numpy(fn @ fn.T / 60), atol=1e-6)

cnn = nn.Sequential(
    nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(inplace=True),
    nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(inplace=True),
    nn.MaxPool2d(2),
    nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=True),
    nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(inplace=True),
).eval()
# "pretrained" weights: loaded from a fixed array source, as VGG's would be from a file
rng = np.random.default_rng(0)
with torch.no_grad():
    for p in cnn.parameters():
        fan_in = p[0].numel() if p.dim() > 1 else 16
        p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)) / np.sqrt(fan_in)))
for p in cnn.parameters():
    p.requires_grad_(False)
cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406])
cnn_normalization_std = torch.tensor([0.229, 0.224, 0.225])


class Normalization(nn.Module):
    def __init__(self, mean, std):
        super(Normalization, self).__init__()
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def forward(self, img):
        return (img - self.mean) / self.std


content_layers_default = ["conv_3"]
style_layers_default = ["conv_1", "conv_2", "conv_3", "conv_4"]


def get_style_model_and_losses(cnn, normalization_mean, normalization_std, style_img, content_img,
                               content_layers=content_layers_default, style_layers=style_layers_default):
    normalization = Normalization(normalization_mean, normalization_std)
    content_losses = []
    style_losses = []
    model = nn.Sequential(normalization)
    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = "conv_{}".format(i)
        elif isinstance(layer, nn.ReLU):
            name = "relu_{}".format(i)
            layer = nn.ReLU(inplace=False)
        elif isinstance(layer, nn.MaxPool2d):
            name = "pool_{}".format(i)
        elif isinstance(layer, nn.BatchNorm2d):
            name = "bn_{}".format(i)
        else:
            raise RuntimeError("Unrecognized layer: {}".format(layer.__class__.__name__))
        model.add_module(name, layer)
        if name in content_layers:
            target = model(content_img).detach()
            content_loss = ContentLoss(target)
            model.add_module("content_loss_{}".format(i), content_loss)
            content_losses.append(content_loss)
        if name in style_layers:
            target_feature = model(style_img).detach()
            style_loss = StyleLoss(target_feature)
            model.add_module("style_loss_{}".format(i), style_loss)
            style_losses.append(style_loss)
    for i in range(len(model) - 1, -1, -1):
        if isinstance(model[i], ContentLoss) or isinstance(model[i], StyleLoss):
            break
    model = model[:(i + 1)]
    return model, style_losses, content_losses


def get_input_optimizer(input_img):
    optimizer = optim.LBFGS([input_img])
    return optimizer


def run_style_transfer(cnn, normalization_mean, normalization_std, content_img, style_img, input_img,
                       num_steps=40, style_weight=100000, content_weight=1):
    print("Building the style transfer model..")
    model, style_losses, content_losses = get_style_model_and_losses(cnn, normalization_mean, normalization_std, style_img, content_img)
    input_img.requires_grad_(True)
    model.eval()
    model.requires_grad_(False)
    optimizer = get_input_optimizer(input_img)
    print("Optimizing..")
    run = [0]
    history = []
    while run[0] <= num_steps:
        def closure():
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = 0
            content_score = 0
            for sl in style_losses:
                style_score += sl.loss
            for cl in content_losses:
                content_score += cl.loss
            style_score *= style_weight
            content_score *= content_weight
            loss = style_score + content_score
            loss.backward()
            run[0] += 1
            history.append(loss.item())
            if run[0] % 20 == 0:
                print("run {}: Style Loss : {:4f} Content Loss: {:4f}".format(run, style_score.item(), content_score.item()))
            return style_score + content_score
        optimizer.step(closure)
    with torch.no_grad():
        input_img.clamp_(0, 1)
    return input_img, model, history


input_img = content_img.clone()
output, model, history = run_style_transfer(cnn, cnn_normalization_mean, cnn_normalization_std, content_img, style_img, input_img)
names = [name for name, _ in model.named_children()]
print(names)
assert names[-1] == "style_loss_4" and "content_loss_3" in names and "pool_2" in names
assert output.min() >= 0 and output.max() <= 1 and not output.grad_fn
assert history[-1] < 0.5 * history[0], (history[0], history[-1])  # the clamps make LBFGS's path jumpy
assert all(p.grad is None for p in cnn.parameters())
torch.set_default_device("cpu")
