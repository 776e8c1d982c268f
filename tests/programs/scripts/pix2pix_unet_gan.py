"""pix2pix as junyanz/pytorch-CycleGAN-and-pix2pix builds it, shrunk to 16x16 images: the
recursive UnetSkipConnectionBlock generator (Conv2d(bias=False) under BatchNorm,
LeakyReLU(0.2, True), ReLU(True), ConvTranspose2d, Dropout(0.5), Tanh, torch.cat skips), the
PatchGAN NLayerDiscriminator, a GANLoss module with registered label buffers expanded to the
prediction, init_weights by classname through apply(), set_requires_grad, and the objective
GAN + 100 * L1. It learns to colour masks: the L1 to the targets falls well below its start."""
import functools

import minigenesis as torch
import minigenesis.nn as nn
from minigenesis.nn import init

torch.manual_seed(0)


class UnetSkipConnectionBlock(nn.Module):
    def __init__(self, outer_nc, inner_nc, input_nc=None, submodule=None, outermost=False,
                 innermost=False, norm_layer=nn.BatchNorm2d, use_dropout=False):
        super(UnetSkipConnectionBlock, self).__init__()
        self.outermost = outermost
        if type(norm_layer) == functools.partial:
            use_bias = norm_layer.func == nn.InstanceNorm2d
        else:
            use_bias = norm_layer == nn.InstanceNorm2d
        if input_nc is None:
            input_nc = outer_nc
        downconv = nn.Conv2d(input_nc, inner_nc, kernel_size=4, stride=2, padding=1, bias=use_bias)
        downrelu = nn.LeakyReLU(0.2, True)
        downnorm = norm_layer(inner_nc)
        uprelu = nn.ReLU(True)
        upnorm = norm_layer(outer_nc)

        if outermost:
            upconv = nn.ConvTranspose2d(inner_nc * 2, outer_nc, kernel_size=4, stride=2, padding=1)
            down = [downconv]
            up = [uprelu, upconv, nn.Tanh()]
            model = down + [submodule] + up
        elif innermost:
            upconv = nn.ConvTranspose2d(inner_nc, outer_nc, kernel_size=4, stride=2, padding=1, bias=use_bias)
            down = [downrelu, downconv]
            up = [uprelu, upconv, upnorm]
            model = down + up
        else:
            upconv = nn.ConvTranspose2d(inner_nc * 2, outer_nc, kernel_size=4, stride=2, padding=1, bias=use_bias)
            down = [downrelu, downconv, downnorm]
            up = [uprelu, upconv, upnorm]
            if use_dropout:
                model = down + [submodule] + up + [nn.Dropout(0.5)]
            else:
                model = down + [submodule] + up
        self.model = nn.Sequential(*model)

    def forward(self, x):
        if self.outermost:
            return self.model(x)
        else:  # add skip connections
            return torch.cat([x, self.model(x)], 1)


class UnetGenerator(nn.Module):
    def __init__(self, input_nc, output_nc, num_downs, ngf=8, norm_layer=nn.BatchNorm2d, use_dropout=False):
        super(UnetGenerator, self).__init__()
        unet_block = UnetSkipConnectionBlock(ngf * 4, ngf * 4, input_nc=None, submodule=None, norm_layer=norm_layer, innermost=True)
        for i in range(num_downs - 4):
            unet_block = UnetSkipConnectionBlock(ngf * 4, ngf * 4, input_nc=None, submodule=unet_block, norm_layer=norm_layer, use_dropout=use_dropout)
        unet_block = UnetSkipConnectionBlock(ngf * 2, ngf * 4, input_nc=None, submodule=unet_block, norm_layer=norm_layer)
        unet_block = UnetSkipConnectionBlock(ngf, ngf * 2, input_nc=None, submodule=unet_block, norm_layer=norm_layer)
        self.model = UnetSkipConnectionBlock(output_nc, ngf, input_nc=input_nc, submodule=unet_block, outermost=True, norm_layer=norm_layer)

    def forward(self, input):
        return self.model(input)


class NLayerDiscriminator(nn.Module):
    def __init__(self, input_nc, ndf=8, n_layers=2, norm_layer=nn.BatchNorm2d):
        super(NLayerDiscriminator, self).__init__()
        use_bias = norm_layer == nn.InstanceNorm2d
        kw, padw = 4, 1
        sequence = [nn.Conv2d(input_nc, ndf, kernel_size=kw, stride=2, padding=padw), nn.LeakyReLU(0.2, True)]
        nf_mult = 1
        for n in range(1, n_layers):
            nf_mult_prev = nf_mult
            nf_mult = min(2 ** n, 8)
            sequence += [
                nn.Conv2d(ndf * nf_mult_prev, ndf * nf_mult, kernel_size=kw, stride=2, padding=padw, bias=use_bias),
                norm_layer(ndf * nf_mult),
                nn.LeakyReLU(0.2, True)
            ]
        nf_mult_prev = nf_mult
        nf_mult = min(2 ** n_layers, 8)
        sequence += [
            nn.Conv2d(ndf * nf_mult_prev, ndf * nf_mult, kernel_size=kw, stride=1, padding=padw, bias=use_bias),
            norm_layer(ndf * nf_mult),
            nn.LeakyReLU(0.2, True)
        ]
        sequence += [nn.Conv2d(ndf * nf_mult, 1, kernel_size=kw, stride=1, padding=padw)]
        self.model = nn.Sequential(*sequence)

    def forward(self, input):
        return self.model(input)


class GANLoss(nn.Module):
    def __init__(self, target_real_label=1.0, target_fake_label=0.0):
        super(GANLoss, self).__init__()
        self.register_buffer('real_label', torch.tensor(target_real_label))
        self.register_buffer('fake_label', torch.tensor(target_fake_label))
        self.loss = nn.BCEWithLogitsLoss()

    def get_target_tensor(self, prediction, target_is_real):
        target_tensor = self.real_label if target_is_real else self.fake_label
        return target_tensor.expand_as(prediction)

    def __call__(self, prediction, target_is_real):
        return self.loss(prediction, self.get_target_tensor(prediction, target_is_real))


def init_weights(net, init_gain=0.02):
    def init_func(m):
        classname = m.__class__.__name__
        if hasattr(m, 'weight') and (classname.find('Conv') != -1 or classname.find('Linear') != -1):
            init.normal_(m.weight.data, 0.0, init_gain)
            if hasattr(m, 'bias') and m.bias is not None:
                init.constant_(m.bias.data, 0.0)
        elif classname.find('BatchNorm2d') != -1:
            init.normal_(m.weight.data, 1.0, init_gain)
            init.constant_(m.bias.data, 0.0)
    net.apply(init_func)


def set_requires_grad(nets, requires_grad=False):
    if not isinstance(nets, list):
        nets = [nets]
    for net in nets:
        if net is not None:
            for param in net.parameters():
                param.requires_grad = requires_grad


def make_pairs(n):
    """A: a binary blob mask; B: the blob coloured by a horizontal gradient, the rest dark."""
    yy, xx = torch.meshgrid(torch.linspace(-1, 1, 16), torch.linspace(-1, 1, 16), indexing="ij")
    c = torch.rand(n, 2, 1, 1) - 0.5
    r = torch.rand(n, 1, 1, 1) * 0.3 + 0.3
    mask = (((xx - c[:, :1]) ** 2 + (yy - c[:, 1:]) ** 2) < r ** 2).float()
    A = mask * 2 - 1
    B = torch.cat([mask * xx, mask * 0.5, mask * -xx], 1) * 0.8 - (1 - mask) * 0.8
    return A, B


netG = UnetGenerator(1, 3, num_downs=4, norm_layer=functools.partial(nn.BatchNorm2d, affine=True, track_running_stats=True))
netD = NLayerDiscriminator(1 + 3)
init_weights(netG)
init_weights(netD)
criterionGAN = GANLoss()
criterionL1 = torch.nn.L1Loss()
optimizer_G = torch.optim.Adam(netG.parameters(), lr=2e-3, betas=(0.5, 0.999))
optimizer_D = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
lambda_L1 = 100.0

real_A, real_B = make_pairs(8)
print("patch output", tuple(netD(torch.cat((real_A, real_B), 1)).shape))
l1_history = []
for it in range(40):
    real_A, real_B = make_pairs(8)
    fake_B = netG(real_A)
    # update D
    set_requires_grad(netD, True)
    optimizer_D.zero_grad()
    fake_AB = torch.cat((real_A, fake_B), 1)
    pred_fake = netD(fake_AB.detach())
    loss_D_fake = criterionGAN(pred_fake, False)
    real_AB = torch.cat((real_A, real_B), 1)
    pred_real = netD(real_AB)
    loss_D_real = criterionGAN(pred_real, True)
    loss_D = (loss_D_fake + loss_D_real) * 0.5
    loss_D.backward()
    optimizer_D.step()
    # update G
    set_requires_grad(netD, False)
    optimizer_G.zero_grad()
    pred_fake = netD(torch.cat((real_A, fake_B), 1))
    loss_G_GAN = criterionGAN(pred_fake, True)
    loss_G_L1 = criterionL1(fake_B, real_B) * lambda_L1
    loss_G = loss_G_GAN + loss_G_L1
    loss_G.backward()
    optimizer_G.step()
    l1_history.append(loss_G_L1.item() / lambda_L1)
    if it % 10 == 0:
        print(f"it {it}  D {loss_D.item():.3f}  G_GAN {loss_G_GAN.item():.3f}  G_L1 {loss_G_L1.item():.3f}")

assert not any(p.requires_grad for p in netD.parameters())
netG.eval()
with torch.no_grad():
    A, B = make_pairs(16)
    out = netG(A)
test_l1 = (out - B).abs().mean().item()
print(f"L1 first {l1_history[0]:.3f}  last {l1_history[-1]:.3f}  eval {test_l1:.3f}")
assert out.shape == (16, 3, 16, 16) and out.abs().max() <= 1
assert test_l1 < 0.5 * l1_history[0]
