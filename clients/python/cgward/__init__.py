"""cgward's Python client: commands confined to a kernel-enforced write boundary.

>>> from cgward import Sandbox
>>> box = Sandbox("/srv/work", memory_limit_mib=512)
>>> result = box.run(["make", "test"], timeout=600)
>>> result.returncode, result.denies
"""

from .sandbox import TERMINATE_GRACE_S, RunResult, Sandbox

__all__ = ["Sandbox", "RunResult", "TERMINATE_GRACE_S"]
