{#- The vocabulary the extractor and this package share: the mirror of `vocabulary()` in
    python_extract/contract.py (see there what each entry means). tests/unit/test_contract.py renders
    this macro and compares it with the Python module, so change both together.
    Not dispatched: an override could only make the two halves disagree. -#}

{% macro sparkload_contract() -%}
  {{ return({
      'write_dispositions': ['append', 'replace', 'merge'],
      'merge_strategies': ['delete-insert', 'upsert', 'scd2', 'insert-only'],
      'default_write_disposition': 'append',
      'default_merge_strategy': 'delete-insert',
      'dedup_sort_orders': ['asc', 'desc'],
      'table_formats': ['delta', 'iceberg'],
      'data_types': ['text', 'bigint', 'double', 'bool', 'decimal', 'timestamp', 'date', 'json', 'binary'],
      'key_hints': ['primary_key', 'merge_key'],
      'column_hints': ['primary_key', 'merge_key', 'hard_delete', 'dedup_sort', 'nullable', 'data_type'],
      'table_hints': ['table_name', 'write_disposition', 'primary_key', 'merge_key', 'columns', 'max_table_nesting'],
      'resource_hints': ['table_name', 'write_disposition', 'primary_key', 'merge_key', 'columns', 'max_table_nesting',
                         'incremental'],
      'root_model_config_keys': ['write_disposition', 'strategy', 'primary_key', 'merge_key', 'dedup_sort', 'hard_delete',
                                 'deduplicated', 'load_status_in', 'load_status_out', 'sequence_by', 'tombstone_retention'],
      'scd2_model_config_keys': ['validity_column_names', 'active_record_timestamp', 'boundary_timestamp',
                                 'row_version_column_name', 'boundary_column'],
      'model_config_keys': ['write_disposition', 'strategy', 'primary_key', 'merge_key', 'dedup_sort', 'hard_delete',
                            'deduplicated', 'load_status_in', 'load_status_out', 'sequence_by', 'tombstone_retention',
                            'validity_column_names', 'active_record_timestamp', 'boundary_timestamp',
                            'row_version_column_name', 'boundary_column', 'loads_dataset',
                            'root_model', 'file_format', 'partition_by', 'tblproperties', 'maintenance'],
      'dlt_prefix': '_dlt',
      'columns': {'load_id': '_dlt_load_id', 'id': '_dlt_id', 'parent_id': '_dlt_parent_id', 'list_idx': '_dlt_list_idx',
                  'root_id': '_dlt_root_id'},
      'validity_column_names': ['_dlt_valid_from', '_dlt_valid_to'],
      'child_table_separator': '__',
      'variant_separator': '__v_',
      'tables': {'loads': '_dlt_loads', 'version': '_dlt_version', 'state': '_dlt_pipeline_state',
                 'load_tables': '_sparkload_load_tables', 'applied_loads': '_sparkload_applied_loads',
                 'removed_roots': '_sparkload_removed_roots', 'scd2_ids': '_sparkload_scd2_ids'},
      'layouts': {
          '_dlt_loads': {'load_id': 'string', 'schema_name': 'string', 'status': 'bigint', 'inserted_at': 'timestamp',
                         'schema_version_hash': 'string'},
          '_dlt_version': {'version': 'bigint', 'engine_version': 'bigint', 'inserted_at': 'timestamp',
                           'schema_name': 'string', 'version_hash': 'string', 'schema': 'string'},
          '_dlt_pipeline_state': {'version': 'bigint', 'engine_version': 'bigint', 'pipeline_name': 'string',
                                  'state': 'string', 'created_at': 'timestamp', 'version_hash': 'string',
                                  '_dlt_load_id': 'string', '_dlt_id': 'string'},
          '_sparkload_load_tables': {'load_id': 'string', 'table_name': 'string', 'row_count': 'bigint'},
          '_sparkload_applied_loads': {'target': 'string', 'load_id': 'string', 'applied_at': 'timestamp'},
          '_sparkload_removed_roots': {'target': 'string', 'load_id': 'string', 'root_id': 'string'},
          '_sparkload_scd2_ids': {'target': 'string', 'load_id': 'string', 'staging_id': 'string', 'version_id': 'string'},
      },
      'load_status': {'completed': 0, 'aborted': -1},
  }) }}
{%- endmacro %}
