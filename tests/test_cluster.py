"""urlnorm on a real Spark standalone cluster whose workers do not have it installed.

A master and two workers run as separate processes, started with the script Spark ships
(``sbin/spark-daemon.sh``), with a bare ``PATH`` and the system's Python, which has no
urlnorm. The job ships urlnorm as PySpark's package-management guide describes: a virtual
environment packed with ``venv-pack`` and handed over with ``--archives``, whose Python the
executors run. Every row the cluster writes is compared with Polars.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

pytest.importorskip("pyspark", reason="the spark extra (pyspark) is not installed")
pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample-data"

# What the job does on the cluster: say which Python its executors run and where their
# urlnorm comes from, run the crawl-dedup pipeline, and run a SQL query over Parquet.
JOB = """
import importlib.util, json, sys
from pathlib import Path
from pyspark.sql import SparkSession

source, lake, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
spark = SparkSession.builder.appName("urlnorm on a cluster").getOrCreate()

def where(_):
    spec = importlib.util.find_spec("urlnorm")
    return sys.executable, spec.origin if spec else None

seen = spark.sparkContext.parallelize(range(8), 4).map(where).distinct().collect()
(out / "executors.json").write_text(json.dumps(seen))

from pipelines.crawl_dedup import run_spark
run_spark(source, out / "dedup")

import urlnorm.spark
urlnorm.spark.register(spark)
spark.read.parquet(lake).createOrReplaceTempView("lake")
spark.sql(
    "SELECT id, url_normalize(url, 'canonical') AS normalized,"
    " url_error(url, 'canonical') AS error, url_registered_domain(url) AS registered_domain"
    " FROM lake"
).write.parquet(str(out / "sql"))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _packed_environment(folder: Path) -> Path:
    """urlnorm and what its Spark functions import, installed from this checkout and packed."""
    env = folder / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
    pip = [str(env / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    subprocess.run([*pip, str(ROOT), "pandas>=2.2,<3"], check=True, timeout=900)
    packed = folder / "environment.tar.gz"
    venv_pack = Path(sys.executable).with_name("venv-pack")
    subprocess.run(
        [str(venv_pack), "-p", str(env), "-o", str(packed), "-q"], check=True, timeout=600
    )
    shutil.rmtree(env)  # the executors have only the archive
    return packed


def _spark_home() -> Path:
    import pyspark

    return Path(pyspark.__file__).parent


class Cluster:
    """A standalone master and workers on this machine, each its own daemon process."""

    def __init__(self, folder: Path, workers: int = 2) -> None:
        self.folder, self.workers, self.port = folder, workers, _free_port()
        self.master = f"spark://127.0.0.1:{self.port}"
        (folder / "logs").mkdir()
        # The daemons see no virtual environment: the system's Python, no urlnorm.
        self.env = {
            "PATH": "/usr/bin:/bin",
            "HOME": os.environ.get("HOME", "/root"),
            "SPARK_HOME": str(_spark_home()),
            "SPARK_LOG_DIR": str(folder / "logs"),
            "SPARK_PID_DIR": str(folder),
            "SPARK_IDENT_STRING": "urlnorm-test",
            "SPARK_LOCAL_IP": "127.0.0.1",
            "PYSPARK_PYTHON": "/usr/bin/python3",
        }

    def _daemon(self, action: str, kind: str, instance: int, *args: str) -> None:
        script = _spark_home() / "sbin" / "spark-daemon.sh"
        command = [str(script), action, f"org.apache.spark.deploy.{kind}", str(instance), *args]
        subprocess.run(command, env=self.env, check=True, capture_output=True, timeout=120)

    def start(self) -> None:
        self._daemon(
            "start",
            "master.Master",
            1,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--webui-port",
            str(_free_port()),
        )
        for i in range(1, self.workers + 1):
            work = self.folder / f"worker{i}"
            work.mkdir()
            self._daemon(
                "start",
                "worker.Worker",
                i,
                "--host",
                "127.0.0.1",
                "--webui-port",
                str(_free_port()),
                "--cores",
                "1",
                "--memory",
                "1g",
                "--work-dir",
                str(work),
                self.master,
            )
        self._wait_for_workers()

    def _wait_for_workers(self, timeout: float = 120) -> None:
        log = self.folder / "logs"
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            masters = list(log.glob("*Master*.out"))
            text = masters[0].read_text() if masters else ""
            if text.count("Registering worker") >= self.workers:
                return
            time.sleep(0.5)
        raise TimeoutError(f"workers did not register:\n{self.logs()}")

    def logs(self) -> str:
        return "\n".join(p.read_text()[-3000:] for p in sorted((self.folder / "logs").iterdir()))

    def stop(self) -> None:
        for i in range(1, self.workers + 1):
            self._daemon("stop", "worker.Worker", i)
        self._daemon("stop", "master.Master", 1)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    if shutil.which("java") is None:
        pytest.skip("no Java for Spark")
    running = Cluster(tmp_path_factory.mktemp("cluster"))
    running.start()
    try:
        yield running
    finally:
        running.stop()


def test_the_workers_python_has_no_urlnorm(cluster: Cluster) -> None:
    python = cluster.env["PYSPARK_PYTHON"]
    run = subprocess.run(
        [python, "-c", "import urlnorm"], cwd=cluster.folder, env=cluster.env, capture_output=True
    )
    assert run.returncode != 0 and b"No module named 'urlnorm'" in run.stderr


def test_jobs_on_a_cluster_equal_polars(cluster: Cluster, tmp_path: Path) -> None:
    packed = _packed_environment(tmp_path)
    job, out = tmp_path / "job.py", tmp_path / "out"
    job.write_text(JOB)
    out.mkdir()
    submit = [
        str(_spark_home() / "bin" / "spark-submit"),
        "--master", cluster.master,
        "--archives", f"{packed}#environment",
        "--conf", "spark.pyspark.python=./environment/bin/python",
        "--conf", f"spark.pyspark.driver.python={sys.executable}",
        "--conf", "spark.ui.enabled=false",
        "--conf", "spark.sql.shuffle.partitions=4",
        str(job), str(SAMPLE / "frontier.parquet"), str(SAMPLE / "lake.parquet"), str(out),
    ]  # fmt: skip
    env = {**os.environ, "SPARK_HOME": str(_spark_home()), "SPARK_LOCAL_IP": "127.0.0.1"}
    env.pop("PYSPARK_PYTHON", None)
    run = subprocess.run(submit, env=env, capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stderr[-4000:] + cluster.logs()

    # Each executor ran the shipped environment's Python and urlnorm, on both workers.
    seen = json.loads((out / "executors.json").read_text())
    assert {Path(python).parts[-3] for python, _ in seen} == {"environment"}
    assert all("/environment/lib/" in origin for _, origin in seen)
    assert len({Path(python).parents[3] for python, _ in seen}) == 2  # two executors

    urlnorm_cli = str(Path(sys.executable).with_name("urlnorm"))
    polars_out = tmp_path / "polars"
    local = subprocess.run(
        [urlnorm_cli, "pipeline", "crawl-dedup", str(SAMPLE / "frontier.parquet"), str(polars_out)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert local.returncode == 0, local.stderr[-2000:]
    on_cluster = pl.read_parquet(out / "dedup" / "*.parquet")
    on_polars = pl.read_parquet(polars_out)
    assert on_cluster.columns == on_polars.columns
    assert on_cluster.sort("normalized").equals(on_polars.sort("normalized"))

    got = pl.read_parquet(out / "sql" / "*.parquet").sort("id")
    lake = pl.read_parquet(SAMPLE / "lake.parquet").sort("id")
    url = pl.col("url").url
    expected = lake.select(
        "id",
        url.normalize("canonical").alias("normalized"),
        url.error("canonical").alias("error"),
        url.registered_domain().alias("registered_domain"),
    )
    assert got.equals(expected)
