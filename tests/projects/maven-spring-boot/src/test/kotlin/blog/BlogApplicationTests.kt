package blog

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Test
import org.springframework.beans.factory.annotation.Autowired
import org.springframework.boot.test.context.SpringBootTest

@SpringBootTest
class BlogApplicationTests(@Autowired private val blog: BlogService, @Autowired private val properties: BlogProperties) {

    @Test
    fun contextLoads() {
        assertEquals("Kotlin and Spring Boot", properties.banner.content)
    }

    @Test
    fun headlineListsTheArticlesFromDataSql() {
        assertEquals("Blog: Lorem, Ipsum", blog.headline())
    }
}
