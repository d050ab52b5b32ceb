-- Filters on paths into the user's JSON data (`(eq,userDefinedData/site,a)`) are matched
-- with jsonb path queries (`@?`) these indexes serve. jsonb cannot hold U+0000: the API
-- refuses it in request bodies; rows written before keep their text with U+FFFD instead.
UPDATE vnf_packages SET user_defined_data = replace(user_defined_data, '\u0000', '\ufffd')
    WHERE strpos(user_defined_data, '\u0000') > 0;
UPDATE vnf_instances SET metadata = replace(metadata, '\u0000', '\ufffd')
    WHERE strpos(metadata, '\u0000') > 0;
UPDATE vnf_instances SET extensions = replace(extensions, '\u0000', '\ufffd')
    WHERE strpos(extensions, '\u0000') > 0;
UPDATE vnf_instances SET vnf_configurable_properties = replace(vnf_configurable_properties, '\u0000', '\ufffd')
    WHERE strpos(vnf_configurable_properties, '\u0000') > 0;
-- fastupdate off: no pending list that every query would scan after a burst of writes.
CREATE INDEX vnf_packages_user_defined_data_paths ON vnf_packages USING gin ((user_defined_data::jsonb) jsonb_path_ops) WITH (fastupdate = off) WHERE deleted_at IS NULL;
CREATE INDEX vnf_instances_metadata_paths ON vnf_instances USING gin ((metadata::jsonb) jsonb_path_ops) WITH (fastupdate = off);
CREATE INDEX vnf_instances_extensions_paths ON vnf_instances USING gin ((extensions::jsonb) jsonb_path_ops) WITH (fastupdate = off);
CREATE INDEX vnf_instances_configurable_properties_paths ON vnf_instances USING gin ((vnf_configurable_properties::jsonb) jsonb_path_ops) WITH (fastupdate = off);
-- Expression statistics (PostgreSQL 14+): the planner estimates how many rows a path
-- query keeps, and takes the index for a rare value instead of walking the list order.
CREATE STATISTICS vnf_packages_user_defined_data_stats ON ((user_defined_data::jsonb)) FROM vnf_packages;
CREATE STATISTICS vnf_instances_metadata_stats ON ((metadata::jsonb)) FROM vnf_instances;
CREATE STATISTICS vnf_instances_extensions_stats ON ((extensions::jsonb)) FROM vnf_instances;
CREATE STATISTICS vnf_instances_configurable_properties_stats ON ((vnf_configurable_properties::jsonb)) FROM vnf_instances;
