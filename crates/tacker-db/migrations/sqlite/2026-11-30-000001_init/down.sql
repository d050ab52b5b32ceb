DROP TABLE conductors;
DROP TABLE vnf_packages;
