"""The checks of a candidate table before a private selection in Spark (:func:`dpmo.spark.select`).

What is public and may be named in a refusal: the DataFrame's schema (its column names and types), the
declared objectives and sensitivities, the number of rows and the candidates' ids (the rows are the public
candidates, as in ``dpmo select``). What is private and is never named: an objective's values, and which
row holds a value that breaks the rule.

* :func:`check_table_objectives` and :func:`check_table_schema` read the arguments and the schema only
  (no Spark job);
* :func:`scan_table` is one Spark job over the table (plus one to name a duplicate id, if there is one):
  the number of rows, whether every objective cell is a finite number (the domain of the objectives, the
  rule of ``dpmo select``: a cell that breaks it stops the selection, releasing nothing), whether the ids
  are present and distinct, and, without an id column, the rows of every input partition (to number the
  rows). Only counts and flags reach the driver.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping
from typing import NamedTuple

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .._validation import check_sensitivity
from .session import check_running

__all__ = ["VALUE_RULE", "TableScan", "column", "check_table_objectives", "check_table_schema", "scan_table"]

#: The rule every objective cell must satisfy (named in the refusal, with the column).
VALUE_RULE = (
    "every candidate needs a finite number in every objective column (not NULL, NaN or infinite); which row "
    "breaks it is not shown: the values are private"
)

_DIRECTIONS = ("max", "min")


def column(name: str) -> Column:
    """The column called ``name`` exactly (dots and spaces are part of the name, not a path).

    Examples
    --------
    >>> from dpmo.spark.checks import column
    >>> str(column("a.b"))
    "Column<'`a.b`'>"
    """
    return F.col("`" + name.replace("`", "``") + "`")


def check_table_objectives(objectives) -> list[tuple[str, float, str]]:
    """``objectives`` (``{column: sensitivity}`` or ``{column: (sensitivity, "min")}``) as a list of
    ``(column, global sensitivity, direction)`` in the mapping's order.

    Examples
    --------
    >>> from dpmo.spark.checks import check_table_objectives
    >>> check_table_objectives({"accuracy": 0.01, "cost": (2, "min")})
    [('accuracy', 0.01, 'max'), ('cost', 2.0, 'min')]
    """
    if not isinstance(objectives, Mapping):
        raise TypeError(
            "objectives must be a dict {column: sensitivity} or {column: (sensitivity, 'min')}, got "
            f"{type(objectives).__name__}"
        )
    if not objectives:
        raise ValueError("objectives must name at least one column")
    out = []
    for col, spec in objectives.items():
        if not isinstance(col, str) or not col:
            raise TypeError(f"objectives: a column name must be a non-empty str, got {col!r}")
        direction = "max"
        if isinstance(spec, tuple):
            if len(spec) != 2:
                raise ValueError(f"objectives[{col!r}] must be a sensitivity or (sensitivity, 'max' | 'min')")
            spec, direction = spec
        if direction not in _DIRECTIONS:
            raise ValueError(f"objectives[{col!r}]: the direction must be 'max' or 'min', got {direction!r}")
        if isinstance(spec, bool) or not isinstance(spec, numbers.Real) or not math.isfinite(float(spec)):
            raise TypeError(
                f"objectives[{col!r}] must be the column's global sensitivity (a positive number), "
                f"got {spec!r}"
            )
        out.append((col, check_sensitivity(spec, f"objectives[{col!r}]"), direction))
    return out


def check_table_schema(df, objectives, id_column) -> None:
    """Refuse, from the schema alone, a DataFrame of a stopped SparkSession, without an objective column or
    the id column or with one of them twice, an objective column that is not numeric, an id column that is
    neither integral nor text, or an id column that is also an objective (the ids are returned: public).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.checks import check_table_schema
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> df = session.createDataFrame([("x", 1.0, "a")], "id string, score double, note string")
    >>> check_table_schema(df, [("score", 1.0, "max")], "id")  # fine: nothing to say
    >>> check_table_schema(df, [("note", 1.0, "max")], "id")
    Traceback (most recent call last):
    ...
    TypeError: objective column 'note' must be numeric (integral, floating point or decimal), it is string
    """
    if not isinstance(df, DataFrame):
        raise TypeError(
            f"df must be a pyspark.sql.DataFrame of candidates (e.g. spark.read.parquet(path)), got "
            f"{type(df).__name__}"
        )
    check_running(df.sparkSession, "df")
    schema = df.schema.fields
    fields = {f.name: f.dataType for f in schema}
    wanted = [c for c, _, _ in objectives] + ([id_column] if isinstance(id_column, str) else [])
    _check_once(df, [f.name for f in schema], wanted)
    for col, _, _ in objectives:
        if col not in fields:
            raise ValueError(
                f"objectives: no column {col!r} in the DataFrame; its columns are {list(fields)}"
            )
        if not isinstance(fields[col], T.NumericType):
            raise TypeError(
                f"objective column {col!r} must be numeric (integral, floating point or decimal), it is "
                f"{fields[col].simpleString()}"
            )
    if id_column is None:
        return
    if not isinstance(id_column, str):
        raise TypeError(f"id_column must be a column name (str) or None, got {type(id_column).__name__}")
    if id_column not in fields:
        raise ValueError(
            f"id_column: no column {id_column!r} in the DataFrame; its columns are {list(fields)}"
        )
    if not isinstance(fields[id_column], (T.IntegralType, T.StringType)):
        raise TypeError(
            f"id_column {id_column!r} must hold integers or strings, it is {fields[id_column].simpleString()}"
        )
    if any(id_column == col for col, _, _ in objectives):
        raise ValueError(
            f"id_column {id_column!r} is also an objective column: the ids are returned (public) and the "
            "objective cells are private; give a column of public ids, or leave out id_column"
        )


def _check_once(df, names: list[str], wanted: list[str]) -> None:
    """Refuse a wanted column that ``df`` has twice (Spark could not tell which is meant): by name, or
    regardless of case when ``spark.sql.caseSensitive`` is off (Spark's default)."""
    sensitive = str(df.sparkSession.conf.get("spark.sql.caseSensitive", "false")).lower() == "true"
    for col in dict.fromkeys(wanted):
        same = [n for n in names if (n == col if sensitive else n.lower() == col.lower())]
        if len(same) > 1:
            case = "" if len(set(same)) == 1 else f" ({', '.join(map(repr, same))}: Spark ignores case here)"
            raise ValueError(
                f"df: column {col!r} appears more than once{case}; each objective and the id column must be "
                "named once: select or rename the columns first"
            )


class TableScan(NamedTuple):
    """What :func:`scan_table` found: the number of rows and, without an id column, the rows of every
    input partition (``{partition index: rows}``, partitions without rows left out).

    Examples
    --------
    >>> from dpmo.spark.checks import TableScan
    >>> TableScan(5, {0: 2, 1: 3}).n
    5
    """

    n: int
    partition_rows: dict[int, int] | None


def _finite(name: str) -> Column:
    x = column(name).cast("double")
    return x.isNotNull() & ~F.isnan(x) & (F.abs(x) < float("inf"))


def scan_table(df: DataFrame, columns: list[str], id_column: str | None) -> TableScan:
    """One Spark job: the rows, the rule on every objective cell (:data:`VALUE_RULE`) and the ids.

    Refuses (``ValueError``) a table without rows, a NULL id, an id that appears twice (named: ids are
    public) and the objective columns with a cell that is not a finite number (the columns and the rule are
    named, never a value or a row). O(rows) work, one shuffle of at most one row per partition (no id
    column) or of the ids with their partial counts (with one).

    Examples
    --------
    >>> from pyspark.sql import SparkSession
    >>> from dpmo.spark.checks import scan_table
    >>> session = SparkSession.builder.master("local[2]").getOrCreate()
    >>> df = session.createDataFrame([("a", 1.0), ("b", float("nan"))], "id string, score double")
    >>> scan_table(df, ["score"], "id")
    Traceback (most recent call last):
    ...
    ValueError: objective column 'score' breaks the rule: every candidate needs a finite number in every ...
    """
    ok = [F.min(F.when(_finite(c), 1).otherwise(0)).alias(f"ok{i}") for i, c in enumerate(columns)]
    flags = [f"ok{i}" for i in range(len(columns))]
    if id_column is None:
        rows = df.groupBy(F.spark_partition_id().alias("p")).agg(F.count(F.lit(1)).alias("n"), *ok).toPandas()
        n = int(rows["n"].sum()) if len(rows) else 0
        fine = [len(rows) == 0 or int(rows[f].min()) == 1 for f in flags]
        parts = {int(p): int(c) for p, c in zip(rows["p"], rows["n"], strict=True)}
    else:
        # rows per id (one shuffle of the ids), then one row: no id's count or value reaches the driver
        per_id = df.groupBy(column(id_column).alias("id")).agg(F.count(F.lit(1)).alias("c"), *ok)
        row = per_id.agg(
            F.sum("c").alias("n"),
            F.max(F.when(F.col("id").isNotNull(), F.col("c"))).alias("most"),
            F.count(F.when(F.col("id").isNull(), 1)).alias("nulls"),
            *[F.min(f).alias(f) for f in flags],
        ).first()
        n = int(row["n"] or 0)
        fine = [n == 0 or row[f] == 1 for f in flags]
        parts = None
        if row["nulls"]:
            raise ValueError(
                f"id_column {id_column!r} holds a NULL: every candidate needs an id (ids are public)"
            )
        if (row["most"] or 0) > 1:
            dup = per_id.where(F.col("c") > 1).select("id").first()[0]
            raise ValueError(f"id {dup!r} appears twice in id_column {id_column!r} (ids are public)")
    if n == 0:
        raise ValueError("the DataFrame has no rows: there are no candidates to select from")
    broken = [c for c, f in zip(columns, fine, strict=True) if not f]
    if broken:
        names = ", ".join(repr(c) for c in broken)
        what = f"objective column {names} breaks" if len(broken) == 1 else f"objective columns {names} break"
        raise ValueError(f"{what} the rule: {VALUE_RULE}")
    return TableScan(n, parts)
