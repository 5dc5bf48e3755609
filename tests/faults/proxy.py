"""A TCP proxy between a gateway process and its PostgreSQL server that a test can break on purpose:
refuse new connections (a closed port), freeze (a server that accepts and never answers, as under
SIGSTOP), cut every open connection (a crash or a network fault), and heal."""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from collections.abc import Iterator


class FaultyProxy:
    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._listener = self._listen(0)
        self.port: int = self._listener.getsockname()[1]
        self._pairs: list[tuple[socket.socket, socket.socket]] = []
        self._lock = threading.Lock()
        self._frozen = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="faulty-proxy", daemon=True)
        self._thread.start()

    @staticmethod
    def _listen(port: int) -> socket.socket:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(64)
        listener.setblocking(False)
        return listener

    # Faults

    def refuse(self) -> None:
        """New connections are refused (nothing listens) and open ones are cut."""
        with self._lock:
            self._listener.close()
        self.cut()

    def freeze(self) -> None:
        """Connections stay open, bytes are taken and never answered; new connections hang too."""
        self._frozen.set()

    def cut(self) -> None:
        with self._lock:
            pairs, self._pairs = self._pairs, []
        for client, server in pairs:
            for sock in (client, server):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def heal(self) -> None:
        """Forwards again, on the same port; connections opened while frozen are cut."""
        self._frozen.clear()
        self.cut()
        with self._lock:
            if self._listener.fileno() == -1:
                self._listener = self._listen(self.port)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        self.cut()
        self._listener.close()

    # Forwarding

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                listener = self._listener if self._listener.fileno() != -1 else None
                pairs = list(self._pairs)
            readable = [s for pair in pairs for s in pair if s.fileno() != -1]
            if listener is not None:
                readable.append(listener)
            if not readable:
                self._stop.wait(0.05)
                continue
            for sock in self._ready(readable):
                if sock is listener:
                    self._accept(listener)
                elif not self._frozen.is_set():
                    self._forward(sock, pairs)

    @staticmethod
    def _ready(sockets: list[socket.socket]) -> Iterator[socket.socket]:
        with selectors.DefaultSelector() as selector:
            for sock in sockets:
                with contextlib.suppress(ValueError, KeyError, OSError):
                    selector.register(sock, selectors.EVENT_READ)
            try:
                events = selector.select(timeout=0.05)
            except OSError:
                return
            for key, _ in events:
                yield key.fileobj  # type: ignore[misc]

    def _accept(self, listener: socket.socket) -> None:
        try:
            client, _ = listener.accept()
        except OSError:
            return
        if self._frozen.is_set():
            with self._lock:  # held open, never connected onwards: the client waits for its answer
                self._pairs.append((client, socket.socket()))
            return
        try:
            server = socket.create_connection(self.target, timeout=5)
        except OSError:
            client.close()
            return
        with self._lock:
            self._pairs.append((client, server))

    def _forward(self, sock: socket.socket, pairs: list[tuple[socket.socket, socket.socket]]) -> None:
        pair = next((p for p in pairs if sock in p), None)
        if pair is None:
            return
        other = pair[1] if sock is pair[0] else pair[0]
        try:
            data = sock.recv(65536)
            if data:
                other.sendall(data)
                return
        except OSError:
            pass
        with self._lock:
            if pair in self._pairs:
                self._pairs.remove(pair)
        for end in pair:
            end.close()
