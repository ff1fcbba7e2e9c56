include $(sort $(wildcard $(BR2_EXTERNAL_OPENLOLO_PATH)/package/*/*.mk))
