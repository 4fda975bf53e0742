# lit configuration that runs every GoogleTest binary under unittests/.

import os

import lit.formats

config.name = "CKPT-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.ckpt_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
