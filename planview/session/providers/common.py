"""The half every SDK-backed provider (openai, anthropic) shares, so each module keeps only its
protocol: the SDK import, model / key / client set-up, API failures as one ProviderError, and
tool calls assembled from streamed pieces."""

from __future__ import annotations

import importlib
import os
import socket
from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, ClassVar

from planview.session.providers.base import ProviderError, ToolCallChunk, parse_arguments

STATUS_DETAIL_CAP = 300  # characters of an error body kept in a message when it is shortened


def import_sdk(name: str) -> Any:
    """The SDK module `name` (also the provider's and the extra's name), or the error naming the fix."""
    try:
        return importlib.import_module(name)
    except ImportError:
        from planview.invocation import install_extra_command

        raise ProviderError(
            f"the {name} provider needs the `{name}` package: {install_extra_command(name)}"
        ) from None


class SdkProvider(ABC):
    """Set-up shared by the SDK providers; a subclass names its SDK and fills in the hooks."""

    name: ClassVar[str]  # "openai": the SDK module, the extra and the label's first word
    sdk_error: ClassVar[str]  # the SDK's root exception class
    default_model: ClassVar[str]
    default_key_env: ClassVar[str]
    shorten_status: ClassVar[bool] = False  # cut long error bodies (some servers send whole pages)

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key_env: str | None = None,
        env: Mapping[str, str] | None = None,
        max_retries: int = 2,
        timeout: float = 120.0,
    ) -> None:
        sdk = import_sdk(self.name)
        env = os.environ if env is None else env
        self.model = model or self.default_model
        self.key_env = api_key_env or self.default_key_env
        self.base_url = self._base_url(base_url, env)
        key = env.get(self.key_env) or self._missing_key()
        self.label = f"{self.name} · {self.model}"
        self._sdk = sdk
        # self.base_url, not the argument: the SDK must talk to the URL the error messages name
        # (it would otherwise read its own *_BASE_URL from os.environ, not from `env`).
        self._client = self._connect(
            sdk, key, self.base_url, {"max_retries": max_retries, "timeout": timeout}
        )

    def snapshot(self) -> dict[str, Any]:
        """What a resumed session needs to talk to the same model (never the key)."""
        return {"kind": self.name, "model": self.model}

    # -- hooks --------------------------------------------------------------------------------
    @abstractmethod
    def _base_url(self, base_url: str | None, env: Mapping[str, str]) -> str:
        """The endpoint the SDK will call (config, then the SDK's own env variable, then its default)."""

    def _missing_key(self) -> str:
        """The key to use when the variable is unset (a local server needs none), else raise."""
        raise ProviderError(
            f"no API key: set {self.key_env} (or name another variable in [provider] api_key_env)"
        )

    @abstractmethod
    def _connect(self, sdk: Any, key: str, base_url: str | None, options: dict[str, Any]) -> Any:
        """The SDK's async client."""

    @abstractmethod
    def _texts(self) -> Mapping[str, str]:
        """What each failure says: rejected_key, unknown_model, timeout, unreachable, answered (who)."""

    # -- shared behaviour ---------------------------------------------------------------------
    @contextmanager
    def api_failures(self) -> Iterator[StreamProgress]:
        """Turn the SDK's exceptions inside the block into one ProviderError saying what happened.

        The block marks `progress.started` once the reply streams: a connection lost after that is
        a reply cut off mid-stream, not a server that cannot be reached. Transport errors the SDKs
        let through unwrapped while a stream is read (httpx's RemoteProtocolError) count too.
        """
        sdk, texts = self._sdk, self._texts()
        progress = StreamProgress()
        try:
            yield progress
        except sdk.AuthenticationError as exc:
            raise ProviderError(texts["rejected_key"]) from exc
        except sdk.NotFoundError as exc:
            raise ProviderError(texts["unknown_model"]) from exc
        except sdk.APITimeoutError as exc:
            raise ProviderError(self._cut(exc) if progress.started else texts["timeout"]) from exc
        except sdk.APIConnectionError as exc:
            raise ProviderError(self._cut(exc) if progress.started else self._unreachable(exc)) from exc
        except sdk.APIStatusError as exc:
            detail = str(getattr(exc, "message", "") or exc)
            if self.shorten_status and len(detail) > STATUS_DETAIL_CAP:
                detail = detail[:STATUS_DETAIL_CAP] + "…"
            raise ProviderError(f"{texts['answered']} answered {exc.status_code}: {detail}") from exc
        except getattr(sdk, self.sdk_error) as exc:
            raise ProviderError(f"{self.name} provider failed: {exc}") from exc
        except Exception as exc:
            if not _is_transport_error(exc):
                raise
            raise ProviderError(self._cut(exc) if progress.started else self._unreachable(exc)) from exc

    def _unreachable(self, exc: BaseException) -> str:
        """`cannot reach URL (connection refused); <fix>`: the texts' "unreachable" with the cause."""
        text = self._texts()["unreachable"]
        reason = _connection_reason(exc)
        head, sep, fix = text.partition("; ")
        return f"{head} ({reason}){sep}{fix}" if reason else text

    def _cut(self, exc: BaseException) -> str:
        reason = _connection_reason(exc) or "the connection closed"
        return (
            f"the reply from {self.base_url} was cut off mid-stream ({reason}); what arrived is kept - "
            "send a message to retry"
        )


@dataclass
class StreamProgress:
    """Whether the reply began to stream: a connection lost after that is a cut-off reply, not no server."""

    started: bool = False  # the first piece of the reply arrived


_TRANSPORT_NAMES = frozenset({"TransportError", "NetworkError", "ProtocolError", "StreamError", "ReadError"})


def _is_transport_error(exc: BaseException) -> bool:
    """httpx / httpcore transport failures (whatever the package is called) and socket errors."""
    if isinstance(exc, ConnectionError | TimeoutError):
        return True
    return any(
        cls.__name__ in _TRANSPORT_NAMES and cls.__module__.split(".")[0].startswith(("httpx", "httpcore"))
        for cls in type(exc).__mro__
    )


def _connection_reason(exc: BaseException) -> str:
    """What the socket said, from the exception's chain: connection refused, reset, name not found, ..."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return "connection refused"
        if isinstance(current, ConnectionResetError):
            return "connection reset"
        if isinstance(current, socket.gaierror):
            return "host name not found"
        name = type(current).__name__
        if name == "RemoteProtocolError":
            return "the server closed the connection before the reply was complete"
        if name in ("ReadTimeout", "WriteTimeout", "PoolTimeout") or isinstance(current, TimeoutError):
            return "timed out"
        current = current.__cause__ or current.__context__
    return ""


CallSlot = dict[str, str]  # {"id", "name", "arguments"}: one tool call's streamed pieces so far


def new_slot(call_id: str = "", name: str = "") -> CallSlot:
    return {"id": call_id, "name": name, "arguments": ""}


def finished_call(index: int, slot: CallSlot) -> ToolCallChunk:
    """A complete call; one whose id never arrived (some local servers) gets `call_<index>`."""
    return ToolCallChunk(parse_arguments(slot["id"] or f"call_{index}", slot["name"], slot["arguments"]))


def leftover_calls(slots: Mapping[int, CallSlot]) -> Iterator[ToolCallChunk]:
    """Calls still open when the stream ended (or was cut), in stream order."""
    for index in sorted(slots):
        yield finished_call(index, slots[index])
