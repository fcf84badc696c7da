"""`Symbol`: a known API name, whether the shim runs it, and what replaces it natively."""

import dataclasses

SUPPORTED = "supported"
SUPPORTED_WITH_TF1 = "supported-with-run --tf1"
NOT_SUPPORTED = "not-supported"
STATUSES = (SUPPORTED, SUPPORTED_WITH_TF1, NOT_SUPPORTED)

GUIDE_PAGE = "migration_guide/replacements.md"


@dataclasses.dataclass(frozen=True)
class Symbol:
    """A known API name and what to do about it.

    Args:
        name: canonical name, e.g. `tf.estimator.DNNClassifier`.
        status: one of `STATUSES`.
        replacement: the native TF2/Keras replacement, and why when unsupported.
        guide: link into the migration guide, `migration_guide/PAGE.md#anchor`.
    """

    name: str
    status: str
    replacement: str
    guide: str


def guide_link(anchor: str) -> str:
    """The migration guide's section `anchor` of the replacements page."""
    return f"{GUIDE_PAGE}#{anchor}"
