"""The embedded Spark lakehouse: settings, jar provisioning and the SparkSession factory."""
from .config import LakehouseConfig, LakehouseConfigError
from .jars import provision
from .session import FormatChoice, choose_format, get_session, session_format

__all__ = ["FormatChoice", "LakehouseConfig", "LakehouseConfigError", "choose_format", "get_session", "provision", "session_format"]
