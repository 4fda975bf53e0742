"""The vision models of examples/torch/ in float64, to check the imported
steps' arithmetic against autograd's at f64 precision."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "examples", "torch"))
from fcn import Fcn  # noqa: E402
from resnet import ResNet  # noqa: E402
from unet import UNet  # noqa: E402


def unet(**options):
    return UNet(**options).double()


def resnet(**options):
    return ResNet(**options).double()


def fcn(**options):
    return Fcn(**options).double()
