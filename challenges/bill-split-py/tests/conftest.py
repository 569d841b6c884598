import pytest


@pytest.fixture
def receipt():
    return ["12.50", "7.25", "1,000.05"]
