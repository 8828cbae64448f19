"""API keys: OS keyring when there is one; otherwise said so, and kept in memory only (never in a file)."""
from __future__ import annotations

import keyring
import pytest
from keyring.backend import KeyringBackend
from keyring.backends import fail

from app.secrets import SecretStore, account_for

ENDPOINT = "https://api.example.test/v1/"
SECRET = "sk-kith-test-0123456789"


class MemoryKeyring(KeyringBackend):
    """A stand-in for a real OS keyring."""

    priority = 1

    def __init__(self):
        super().__init__()
        self.items = {}

    def get_password(self, service, username):
        return self.items.get((service, username))

    def set_password(self, service, username, password):
        self.items[(service, username)] = password

    def delete_password(self, service, username):
        self.items.pop((service, username), None)


@pytest.fixture
def restore_keyring():
    before = keyring.get_keyring()
    yield
    keyring.set_keyring(before)


def test_no_backend_says_so_and_keeps_the_key_in_memory_only(restore_keyring, kith_home, tmp_path):
    keyring.set_keyring(fail.Keyring())
    store = SecretStore()
    status = store.status()
    assert not status.available and "No OS keyring" in status.message and "session only" in status.message
    assert store.set_api_key(ENDPOINT, SECRET) == "session"
    assert store.get_api_key(ENDPOINT) == SECRET
    assert SECRET not in repr(store)
    assert SecretStore().get_api_key(ENDPOINT) is None  # a new session does not see it
    for path in tmp_path.rglob("*"):  # nothing written anywhere under the test's folders
        assert not path.is_file() or SECRET.encode() not in path.read_bytes()
    store.delete_api_key(ENDPOINT)
    assert store.get_api_key(ENDPOINT) is None


def test_real_backend_persists_in_the_keyring(restore_keyring):
    kr = MemoryKeyring()
    keyring.set_keyring(kr)
    store = SecretStore()
    assert store.status().available
    assert store.set_api_key(ENDPOINT, SECRET) == "keyring"
    assert kr.items == {("Kith", account_for(ENDPOINT)): SECRET}
    assert SecretStore().get_api_key(ENDPOINT) == SECRET  # persists across sessions
    assert store.set_api_key(ENDPOINT, "") == "deleted" and not kr.items


def test_account_ignores_trailing_slash():
    assert account_for("http://x/v1/") == account_for("http://x/v1") == "api-key:http://x/v1"
