{#- A model's strategy, read from the contract (`strategies` of sparkload_contract(), declared in
    python_extract/contract.py STRATEGIES): what it requires, ignores, takes, how its loads are grouped and
    what it supports. Every rule that depends on the strategy reads its spec here instead of comparing names.
    Not dispatched: the spec is the contract's, an override could only make the halves disagree. -#}

{#- The spec's name: the merge strategy, else the disposition; a child model takes child, or child_scd2
    under a root whose version ids derive from content, except under a replace root (contract.strategy_name). -#}
{% macro sparkload_strategy_name(disposition, strategy, root=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {#- a root that rebuilds its table from its newest load (replace) rebuilds its children with the same statement -#}
  {%- if root is not none and sl.sparkload_contract().strategies.get(disposition, {}).grouping != 'newest_load' -%}
    {{ return('child_scd2' if root.rewrites_ids else 'child') }}
  {%- endif -%}
  {{ return(strategy or disposition) }}
{%- endmacro %}

{#- The spec of a config (write_disposition, strategy, root), {} for a name the contract does not know. -#}
{% macro sparkload_strategy_spec(cfg) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set name = sl.sparkload_strategy_name(cfg.write_disposition, cfg.strategy, cfg.root) -%}
  {{ return(sl.sparkload_contract().strategies.get(name, {})) }}
{%- endmacro %}

{#- The strategies (merge strategies, or dispositions of their own) whose spec has `field` true, or lists
    `value` in it: for messages that say which ones take a key (`strategy=a, b`). -#}
{% macro _sparkload_strategies_with(field, value=none) -%}
  {%- set sl = sparkload if sparkload is defined else context -%}
  {%- set names = [] -%}
  {%- set vocabulary = sl.sparkload_contract() -%}
  {%- for name, spec in vocabulary.strategies.items() if name in vocabulary.merge_strategies + vocabulary.write_dispositions -%}
    {%- if (value is none and spec[field]) or (value is not none and value in spec[field]) -%}{%- do names.append(name) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(names) }}
{%- endmacro %}
