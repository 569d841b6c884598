"""What trusted tests import: `from bouts_subject import pollution, SubjectFault`.

pollution() returns the names the subject reported as added to (or changed in) `builtins` or
built-in types' dicts since the current test started or the previous pollution() call, and
clears them. SubjectFault is raised when the subject crashed, hung, broke the protocol or is
unavailable; it is a BaseException, not an Exception, so `pytest.raises(Exception)` cannot
accept it.
"""

from bouts_bridge import SubjectFault, pollution

__all__ = ["SubjectFault", "pollution"]
