"""The Models page of Settings: chat backend, endpoint, model, API key (OS keyring), test connection,
and preparing the built-in models with progress.  Talks only to app/ (registry, secrets)."""
from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (QComboBox, QFormLayout, QHBoxLayout, QLabel, QLineEdit, QProgressBar, QPushButton,
                               QSpinBox, QVBoxLayout, QWidget)

from app.models.registry import (ANSWERERS, BACKENDS, check_connection, detect_local_servers, fetch_model,
                                 prepare_default_models, probe_answerers, save_model_settings, setting)
from app.secrets import default_store
from ui import header, scroll_page
from ui.worker import Worker

BACKEND_LABELS = {"mlx": "Local (mlx-lm)", "openai": "OpenAI-compatible server", "none": "None (memory only)"}
ANSWERER_LABELS = {"auto": "Automatic (a model you chose; else Kith's memory answers)",
                   "memory": "Kith's memory answers (short, checked, with sources)",
                   "model": "The chat model (grounded, checked)"}


class ModelsPage(QWidget):
    """Settings → Models.

    Signals:
        saved(): the settings were written.
        connectionTested(object): an ``app.models.llm.ConnectionReport``.
    """

    saved = Signal()
    connectionTested = Signal(object)
    prepared = Signal(object)
    detected = Signal(object)
    probed = Signal(object)

    def __init__(self, container, worker: Worker | None = None, secrets=None, parent: QWidget | None = None):
        super().__init__(parent)
        self.container = container
        self.settings = container.settings
        self.worker = worker or Worker(parent=self)
        self.secrets = secrets or default_store()
        # The page scrolls rather than squeezes: at the window's 760 × 480 minimum its rows need more height than
        # the tab has, and a squeezed form cut the keyring note's last line and the fields' descenders.
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        self.scroll, self.body = scroll_page()
        outer.addWidget(self.scroll)
        lay = QVBoxLayout(self.body)
        lay.addWidget(header("Models", "Kith works offline with its built-in models; point it at a better one "
                                       "if you have it."))
        form = QFormLayout()
        self.backend = QComboBox()
        for b in BACKENDS:
            self.backend.addItem(BACKEND_LABELS[b], b)
        self.local_model = QLineEdit()
        self.local_model.setPlaceholderText("built-in SmolLM2-135M-Instruct (or a model folder / mlx-community repo)")
        self.endpoint = QLineEdit()
        self.endpoint.setPlaceholderText("http://127.0.0.1:11434/v1")
        self.endpoint_model = QLineEdit()
        self.endpoint_model.setPlaceholderText("the server's model name (empty: the server's only model)")
        self.api_key = QLineEdit()
        self.api_key.setEchoMode(QLineEdit.EchoMode.Password)
        self.api_key.setPlaceholderText("not needed for local servers")
        self.key_status = QLabel()
        self.key_status.setWordWrap(True)
        self.context = QSpinBox()
        self.context.setRange(0, 1_048_576)
        self.context.setSpecialValueText("the model's own")
        self.speech_model = QLineEdit()
        self.speech_model.setPlaceholderText("automatic: built-in Whisper base, or tiny.en (fast, English only); "
                                             "or a checkpoint / small, ...")
        self.answerer = QComboBox()
        for a in ANSWERERS:
            self.answerer.addItem(ANSWERER_LABELS[a], a)
        self.found = QComboBox()
        self.found.setPlaceholderText("press Detect to look for Ollama or LM Studio on this computer")
        form.addRow("Answers", self.answerer)
        form.addRow("Found on this computer", self.found)
        form.addRow("Chat model", self.backend)
        form.addRow("Local model", self.local_model)
        form.addRow("Server URL", self.endpoint)
        form.addRow("Server model", self.endpoint_model)
        form.addRow("API key", self.api_key)
        # A blank QWidget, not an empty "" label, beside the note: with an empty QLabel there QFormLayout gave the
        # wrapped note its narrow size-hint height (four lines: a gap above two lines of text at 800 px), with a
        # plain widget it gives it the height its lines need at their width.
        form.addRow(QWidget(), self.key_status)
        form.addRow("Context window (tokens)", self.context)
        form.addRow("Speech model", self.speech_model)
        lay.addLayout(form)
        buttons = QHBoxLayout()
        self.save_button = QPushButton("Save")
        self.test_button = QPushButton("Test connection")
        self.detect_button = QPushButton("Detect")
        self.probe_button = QPushButton("Test answers")
        self.probe_button.setToolTip("Ask the configured model a few questions with known answers and compare its "
                                     "score with Kith's memory answers")
        self.prepare_button = QPushButton("Prepare built-in models")
        self.download_button = QPushButton("Download")
        self.download_button.setToolTip("Download the mlx-lm model named by its repo id (owner/name), with "
                                        "checksums; needs a network once")
        for b in (self.save_button, self.test_button, self.detect_button, self.probe_button, self.download_button,
                  self.prepare_button):
            buttons.addWidget(b)
        buttons.addStretch(1)
        lay.addLayout(buttons)
        self.progress = QProgressBar()
        self.progress.setRange(0, 100)
        self.progress.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        lay.addStretch(1)

        self.backend.currentIndexChanged.connect(self._update_enabled)
        self.save_button.clicked.connect(self.save)
        self.test_button.clicked.connect(self.test)
        self.prepare_button.clicked.connect(self.prepare)
        self.detect_button.clicked.connect(self.detect)
        self.download_button.clicked.connect(self.download)
        self.probe_button.clicked.connect(self.probe)
        self.found.activated.connect(self._use_found)
        self._detected_once = False
        self.load()

    def showEvent(self, event) -> None:  # noqa: N802 - Qt's name
        """Opening the page looks for local servers once (never before: no probing in the background)."""
        super().showEvent(event)
        if not self._detected_once:
            self._detected_once = True
            self.detect()

    def detect(self, candidates=None) -> None:
        """Look for Ollama / LM Studio on the loopback interface (in the background) and list their models."""
        self.detect_button.setEnabled(False)
        self.status.setText("Looking for model servers on this computer…")
        args = (candidates,) if candidates is not None else ()
        job = self.worker.call(detect_local_servers, *args, name="detect-servers")
        job.finished.connect(self._detected)
        job.failed.connect(lambda m: self._detected([], m))

    def _detected(self, servers, error: str | None = None) -> None:
        self.detect_button.setEnabled(True)
        self.found.clear()
        for srv in servers or []:
            for m in srv["models"]:
                self.found.addItem(f"{srv['name']}: {m}", (srv["base_url"], m))
        n = self.found.count()
        self.found.setPlaceholderText("detection failed: see below" if error else
                                      f"{n} model(s) found: pick one" if n else
                                      "none running (start Ollama or LM Studio, then press Detect)")
        self.status.setText(f"✗ {error}" if error else (f"Found {n} model(s): pick one to use it." if n else
                                                         "No Ollama or LM Studio server is running on this computer."))
        self.detected.emit(servers or [])

    def _use_found(self, index: int) -> None:
        data = self.found.itemData(index)
        if not data:
            return
        base_url, model = data
        self.backend.setCurrentIndex(self.backend.findData("openai"))
        self.endpoint.setText(base_url)
        self.endpoint_model.setText(model)
        self.answerer.setCurrentIndex(self.answerer.findData("auto"))
        self.status.setText(f"{model} at {base_url}: press Save to use it, Test answers to score it.")

    def download(self) -> None:
        """Fetch the mlx-lm model whose repo id is in *Local model* (progress bar; checked; then saved as the
        local model folder)."""
        repo = self.local_model.text().strip()
        self.download_button.setEnabled(False)
        self.progress.setValue(0)
        self.progress.show()
        job = self.worker.submit(lambda j: fetch_model(self.settings, repo, lambda st, f: j.report((st, f))),
                                 name="download-model")
        job.progress.connect(self._on_progress)
        job.finished.connect(self._downloaded)
        job.failed.connect(lambda m: self._downloaded(None, m))

    def _downloaded(self, path, error: str | None = None) -> None:
        self.download_button.setEnabled(True)
        self.progress.hide()
        if path is None:
            self.status.setText(f"✗ {self.secrets.mask(error)}")
            return
        self.local_model.setText(str(path))
        self.backend.setCurrentIndex(self.backend.findData("mlx"))
        self.status.setText(f"Downloaded and checked: {path}. Press Save to use it.")

    def probe(self) -> None:
        """Run the QA probe on the edited settings: the model's score beside Kith's memory answers."""
        probe = self._probe_settings()
        self.probe_button.setEnabled(False)
        self.status.setText("Testing answers…")
        job = self.worker.call(probe_answerers, probe, secrets=self.secrets, name="probe")
        job.finished.connect(self._probed)
        job.failed.connect(lambda m: self._probed(None, m))

    def _probed(self, score, error: str | None = None) -> None:
        self.probe_button.setEnabled(True)
        self.status.setText(f"✗ {self.secrets.mask(error)}" if score is None else score.describe())
        if score is not None:
            self.probed.emit(score)

    def _probe_settings(self):
        values = self.values()
        probe = type("ProbeSettings", (), {})()
        probe.models_dir = self.settings.models_dir
        for name, value in values.items():
            setattr(probe, name, value)
        return probe

    # ----------------------------------------------------------------------------------------------

    def load(self) -> None:
        """Show the current settings (never the key itself: only whether one is stored)."""
        self.backend.setCurrentIndex(max(0, self.backend.findData(setting(self.settings, "chat_backend"))))
        self.answerer.setCurrentIndex(max(0, self.answerer.findData(setting(self.settings, "chat_answerer"))))
        self.local_model.setText(setting(self.settings, "chat_model"))
        self.endpoint.setText(setting(self.settings, "chat_endpoint"))
        self.endpoint_model.setText(setting(self.settings, "chat_endpoint_model"))
        self.context.setValue(int(setting(self.settings, "chat_context_tokens") or 0))
        self.speech_model.setText(setting(self.settings, "transcribe_model"))
        self.api_key.clear()
        stored = self.secrets.get_api_key(self.endpoint.text())
        status = self.secrets.status()
        self.key_status.setText(("A key is stored. " if stored else "") + status.message)
        self._update_enabled()

    def values(self) -> dict:
        """The model settings as edited."""
        return {"chat_backend": self.backend.currentData(), "chat_model": self.local_model.text().strip(),
                "chat_endpoint": self.endpoint.text().strip(), "chat_endpoint_model": self.endpoint_model.text().strip(),
                "chat_context_tokens": self.context.value(), "transcribe_model": self.speech_model.text().strip(),
                "chat_answerer": self.answerer.currentData()}

    def _update_enabled(self) -> None:
        http = self.backend.currentData() == "openai"
        for w in (self.endpoint, self.endpoint_model, self.api_key):
            w.setEnabled(http)
        self.local_model.setEnabled(self.backend.currentData() == "mlx")

    def save(self) -> None:
        """Write the settings; a typed key goes to the keyring (or this session's memory, as the page says)."""
        try:
            save_model_settings(self.settings, self.values())
        except Exception as exc:  # ModelError / OSError: shown, not raised into Qt
            self.status.setText(f"Could not save: {exc}")
            return
        key = self.api_key.text()
        msg = "Saved."
        if key:
            where = self.secrets.set_api_key(self.endpoint.text().strip(), key)
            self.api_key.clear()
            msg += (" The API key is in the OS keyring." if where == "keyring"
                    else " No OS keyring here: the API key is kept for this session only.")
        self.status.setText(msg)
        self.saved.emit()

    def test(self) -> None:
        """Run the connection test in the background; the result shows below the buttons."""
        values, key = self.values(), self.api_key.text() or None
        probe = type("ProbeSettings", (), {})()  # the edits, not yet saved
        probe.models_dir = self.settings.models_dir
        for name, value in values.items():
            setattr(probe, name, value)
        self.test_button.setEnabled(False)
        self.status.setText("Testing…")
        job = self.worker.call(check_connection, probe, api_key=key, secrets=self.secrets, name="test-connection")
        job.finished.connect(self._tested)
        job.failed.connect(lambda m: self._tested(None, m))

    def _tested(self, report, error: str | None = None) -> None:
        self.test_button.setEnabled(True)
        if report is None:
            self.status.setText(f"✗ {self.secrets.mask(error)}")
            return
        models = f" Models: {', '.join(report.models[:8])}" if report.models else ""
        self.status.setText(("✓ " if report.ok else "✗ ") + report.message + models)
        self.connectionTested.emit(report)

    def prepare(self) -> None:
        """Convert the built-in models once (progress bar), reusing earlier conversions."""
        self.prepare_button.setEnabled(False)
        self.progress.setValue(0)
        self.progress.show()
        job = self.worker.submit(lambda j: prepare_default_models(self.settings, lambda s, f: j.report((s, f))),
                                 name="prepare-models")
        job.progress.connect(self._on_progress)
        job.finished.connect(self._prepared)
        job.failed.connect(lambda m: self._prepared(None, m))

    def _on_progress(self, value) -> None:
        stage, frac = value
        self.progress.setValue(int(frac * 100))
        self.status.setText(stage)

    def _prepared(self, paths, error: str | None = None) -> None:
        self.prepare_button.setEnabled(True)
        self.progress.hide()
        if paths is None:
            self.status.setText(f"✗ {error}")
            return
        self.status.setText("Built-in models ready: " + ", ".join(str(p) for p in paths.values()))
        self.prepared.emit(paths)
