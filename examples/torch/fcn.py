"""A fully convolutional segmentation network: a backbone of
convolution-batch norm-ReLU layers with a 2x2 max pool, a padded 3x3
average pool and a dilated depthwise-separable convolution; a 1x1
classifier; nearest-neighbour upsampling back to the input's size; and
per-pixel cross-entropy against integer class maps. Scaled down to run
on 32x32 images in well under a second per step on a CPU."""

import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class ConvBnRelu(nn.Module):
    def __init__(self, inputs, outputs, kernel, **conv):
        super().__init__()
        self.conv = nn.Conv2d(inputs, outputs, kernel, bias=False, **conv)
        self.bn = nn.BatchNorm2d(outputs)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)))


class Fcn(nn.Module):
    def __init__(self, classes=5, width=16, checkpoint_layers=False):
        super().__init__()
        self.conv1 = ConvBnRelu(3, width, 3, padding=1)
        self.pool1 = nn.MaxPool2d(2)
        self.conv2 = ConvBnRelu(width, 2 * width, 3, padding=1)
        self.pool2 = nn.AvgPool2d(3, stride=2, padding=1,
                                  count_include_pad=False)
        # Depthwise (one dilated 3x3 filter per channel), then pointwise.
        self.depthwise = ConvBnRelu(2 * width, 2 * width, 3, padding=2,
                                    dilation=2, groups=2 * width)
        self.pointwise = ConvBnRelu(2 * width, 4 * width, 1)
        self.classifier = nn.Conv2d(4 * width, classes, 1)
        self.classes = classes
        self.checkpoint_layers = checkpoint_layers

    def layer(self, layer, x):
        return (checkpoint(layer, x, use_reentrant=False)
                if self.checkpoint_layers else layer(x))

    def forward(self, images, labels):
        x = self.pool1(self.layer(self.conv1, images))
        x = self.pool2(self.layer(self.conv2, x))
        x = self.layer(self.pointwise, self.layer(self.depthwise, x))
        scores = F.interpolate(self.classifier(x), size=images.shape[-2:],
                               mode="nearest")
        pixels = scores.permute(0, 2, 3, 1).reshape(-1, self.classes)
        return F.cross_entropy(pixels, labels.reshape(-1))
