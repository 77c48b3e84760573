"""Shared pytest configuration: quiet torch.export warnings."""

import warnings

warnings.filterwarnings("ignore", category=FutureWarning)
warnings.filterwarnings("ignore", category=UserWarning)
