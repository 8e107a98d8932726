{#- sequence_by for strategy=upsert and delete-insert (docs/beyond-dlt.md#sequence-aware-upsert-and-delete-insert).
    A row's version is (its sequence_by values, its `_dlt_load_id`), compared lexicographically: the
    highest version of a key wins, within a batch (dedup.sql) and against the table's row (the
    strategies' MERGE conditions), so an equal sequence goes to the later load. A sequence value is never
    NULL in a load (the statement raises, naming the column and load); a table row without one (from
    before sequence_by was set) is older than any row that has one. With hard_delete, a winning delete
    leaves a tombstone (`_sparkload_tombstones`: target, key, sequence, load_id, loaded_at) that keeps
    older rows of its key out for tombstone_retention, counted from the delete's load `inserted_at` to
    the newest load a statement applies. -#}
{% macro _sparkload_validate_sequence(target, cfg) -%}
  {{ return(adapter.dispatch('_sparkload_validate_sequence', 'sparkload')(target, cfg)) }}
{%- endmacro %}

{% macro default___sparkload_validate_sequence(target, cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set fail = sl._sparkload_fail -%}
  {%- set spec = sl.sparkload_strategy_spec(cfg) -%}
  {%- if cfg.root is not none or spec.bitemporal -%}{{ return(none) }}{%- endif -%}  {#- bitemporal.sql checks its own -#}
  {%- set what = 'strategy=' ~ cfg.strategy if cfg.strategy else 'write_disposition=' ~ cfg.write_disposition -%}
  {%- if cfg.sequence_by and not spec.sequence_by -%}
    {{ fail(target, 'sequence_by applies to strategy=upsert, delete-insert and scd2 of write_disposition=merge, not ' ~ what ~ '.') }}
  {%- elif cfg.sequence_by and not cfg.primary_key -%}
    {{ fail(target, 'sequence_by orders the versions of one primary key: strategy=' ~ cfg.strategy ~ ' with sequence_by needs primary_key.') }}
  {%- elif cfg.sequence_by and cfg.merge_key and 'merge_key' not in spec.ignores -%}  {#- a merge_key the strategy replaces rows by -#}
    {{ fail(target, 'sequence_by with merge_key=' ~ cfg.merge_key | join(', ') ~ ' is not defined: a load replaces every row of a merge key, and those rows have no single sequence. Use primary_key alone, or drop sequence_by.') }}
  {%- elif cfg.sequence_by and cfg.deduplicated -%}
    {{ fail(target, 'sequence_by with deduplicated=true is not defined: deduplicated inserts every row of a key, sequence_by keeps its newest. Drop one of them.') }}
  {%- endif -%}
  {%- if cfg.tombstone_retention is not none and not (cfg.sequence_by and cfg.hard_delete) -%}
    {{ fail(target, 'tombstone_retention=' ~ cfg.tombstone_retention ~ ' applies only with sequence_by and hard_delete (strategy=upsert or delete-insert).') }}
  {%- elif cfg.tombstone_retention is not none and sl.sparkload_duration_seconds(cfg.tombstone_retention) is none -%}
    {{ fail(target, 'tombstone_retention=' ~ cfg.tombstone_retention ~ ' is not a duration; expected \'<n> seconds|minutes|hours|days\' or \'<n>s|m|h|d\', e.g. \'30 days\'.') }}
  {%- endif -%}
{%- endmacro %}

{#- The sequence_by columns are among the batch's columns (after validate_sparkload_columns). -#}
{% macro _sparkload_validate_sequence_columns(target, cfg, columns, pending) -%}
  {{ return(adapter.dispatch('_sparkload_validate_sequence_columns', 'sparkload')(target, cfg, columns, pending)) }}
{%- endmacro %}

{% macro default___sparkload_validate_sequence_columns(target, cfg, columns, pending) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set names = sl._sparkload_names(columns) -%}
  {%- for col in cfg.sequence_by if cfg.root is none and col not in names -%}
    {#- a config mistake: the fix is in the model, never an --abort of loads (as validate_sparkload_columns) -#}
    {{ sl._sparkload_fail(target, 'sequence_by column `' ~ col ~ '` is not among the model\'s columns (' ~ names | join(', ') ~ ') (loads '
        ~ pending.ids | join(', ') ~ '). Fix sequence_by in the model\'s config to name one of them, or select `' ~ col
        ~ '` in the model; the loads stay pending and apply once it is fixed.') }}
  {%- endfor -%}
{%- endmacro %}

{#- Whether the version `new` beats or equals the version `old`: lists of SQL expressions, the
    sequence_by values then the load id; an `old` sequence value that is NULL loses. -#}
{% macro get_sparkload_sequence_wins_sql(new, old) -%}
  {{ return(adapter.dispatch('get_sparkload_sequence_wins_sql', 'sparkload')(new, old)) }}
{%- endmacro %}

{% macro default__get_sparkload_sequence_wins_sql(new, old) -%}
  {%- set wins = namespace(sql=new[-1] ~ ' >= ' ~ old[-1]) -%}
  {%- for i in range(new | length - 2, -1, -1) -%}
    {%- set wins.sql = '(' ~ old[i] ~ ' is null or ' ~ new[i] ~ ' > ' ~ old[i] ~ ' or (' ~ new[i] ~ ' = ' ~ old[i] ~ ' and ' ~ wins.sql ~ '))' -%}
  {%- endfor -%}
  {{ return(wins.sql) }}
{%- endmacro %}

{#- A row's version as that list: `alias`.sequence columns, then `alias`.`_dlt_load_id`. -#}
{% macro sparkload_sequence_version(cfg, alias) -%}
  {{ return(adapter.dispatch('sparkload_sequence_version', 'sparkload')(cfg, alias)) }}
{%- endmacro %}

{% macro default__sparkload_sequence_version(cfg, alias) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set version = [] -%}
  {%- for c in cfg.sequence_by + ['_dlt_load_id'] -%}{%- do version.append(alias ~ '.' ~ sl.sparkload_ident(c)) -%}{%- endfor -%}
  {{ return(version) }}
{%- endmacro %}

{#- A predicate over a batch row that raises when a sequence_by value is NULL, naming the column, the
    load and the key: every row of the batch is checked before any row is ranked. -#}
{% macro get_sparkload_sequence_check_sql(cfg, pipelines) -%}
  {{ return(adapter.dispatch('get_sparkload_sequence_check_sql', 'sparkload')(cfg, pipelines)) }}
{%- endmacro %}

{% macro default__get_sparkload_sequence_check_sql(cfg, pipelines) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set q, ident = sl.sparkload_literal, sl.sparkload_ident -%}
  {%- set shown = [] -%}
  {%- for k in cfg.primary_key -%}
    {%- do shown.append('concat(' ~ q(k ~ '=') ~ ', coalesce(cast(' ~ ident(k) ~ ' as string), \'NULL\'))') -%}
  {%- endfor -%}
  {%- set whens = [] -%}
  {%- for col in cfg.sequence_by -%}
    {%- set prefix = 'sparkload model ' ~ model.name ~ ' (table ' ~ this ~ '): sequence_by column `' ~ col ~ '` is NULL in load ' -%}
    {%- do whens.append('when ' ~ ident(col) ~ ' is null then raise_error(concat(' ~ q(prefix) ~ ', `_dlt_load_id`, \' (\', concat_ws(\', \', '
        ~ shown | join(', ') ~ '), ' ~ q('); every row needs a sequence. The table is unchanged. ') ~ ', '
        ~ sl.sparkload_abort_hint(cfg, pipelines, '`_dlt_load_id`', as_sql=true) ~ '))') -%}
  {%- endfor -%}
  {{ return('case ' ~ whens | join(' ') ~ ' else true end') }}
{%- endmacro %}
